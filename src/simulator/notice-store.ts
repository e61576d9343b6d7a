/**
 * The notices the simulated service holds, in memory, in the order /ip/notices serves
 * them: latest posted first, ties broken by the higher id.
 */
import { pipelineById } from './pipelines.js';
import type { NoticeFields, WireNotice } from './types.js';

/** A stored notice: the wire fields minus the pipeline details, which are joined on output. */
export interface StoredNotice extends NoticeFields {
  id: number;
  pipeline_id: number;
}

/** A query over the store. */
export interface NoticeQuery {
  pipelineId?: number;
  /** Only notices whose posted_at sorts before this datetime text (demo: old data only). */
  postedBefore?: string;
  /**
   * Only notices the service has created by this datetime text: the history's last events
   * are dated by the first refresh after the start, and are not served before it.
   */
  createdBy?: string;
}

/** In-memory notices with ids allocated in insertion order, i.e. by service_created_at. */
export class NoticeStore {
  private readonly byId = new Map<number, StoredNotice>();
  private sorted: StoredNotice[] | null = null;
  private newestCreated = '';
  private nextId: number;

  constructor(firstId: number) {
    this.nextId = firstId;
  }

  /** Stores a new notice under the next id. */
  insert(pipelineId: number, fields: NoticeFields): StoredNotice {
    const notice: StoredNotice = { id: this.nextId++, pipeline_id: pipelineId, ...fields };
    this.byId.set(notice.id, notice);
    this.sorted = null;
    this.noteCreated(notice);
    return notice;
  }

  /** The notice with an id, if any. */
  get(id: number): StoredNotice | undefined {
    return this.byId.get(id);
  }

  /** Changes fields of a stored notice in place. */
  update(id: number, changes: Partial<NoticeFields>): StoredNotice {
    const notice = this.byId.get(id);
    if (!notice) throw new RangeError(`no notice with id ${id}`);
    Object.assign(notice, changes);
    this.sorted = null;
    this.noteCreated(notice);
    return notice;
  }

  private noteCreated(notice: StoredNotice): void {
    if (notice.service_created_at > this.newestCreated) {
      this.newestCreated = notice.service_created_at;
    }
  }

  /** How many notices are stored. */
  get size(): number {
    return this.byId.size;
  }

  /** Matching notices, latest posted first. */
  list(query: NoticeQuery = {}): StoredNotice[] {
    if (!this.sorted) {
      this.sorted = [...this.byId.values()].sort((a, b) =>
        a.posted_at === b.posted_at ? b.id - a.id : a.posted_at < b.posted_at ? 1 : -1,
      );
    }
    const { pipelineId, postedBefore } = query;
    const createdBy =
      query.createdBy !== undefined && query.createdBy < this.newestCreated
        ? query.createdBy
        : undefined;
    if (pipelineId === undefined && postedBefore === undefined && createdBy === undefined) {
      return this.sorted;
    }
    return this.sorted.filter(
      (n) =>
        (pipelineId === undefined || n.pipeline_id === pipelineId) &&
        (postedBefore === undefined || n.posted_at < postedBefore) &&
        (createdBy === undefined || n.service_created_at <= createdBy),
    );
  }
}

/**
 * The /ip/notices form of a stored notice: its id and pipeline, the pipeline's details
 * joined in, then every field the notice holds, in the order the wire gives them.
 */
export function wireNotice(n: StoredNotice): WireNotice {
  const p = pipelineById(n.pipeline_id);
  const { id, pipeline_id, ...fields } = n;
  return {
    id,
    pipeline_id,
    pipeline_name: p.name,
    pipeline_slug: p.slug,
    pipeline_url: p.url,
    ...fields,
  };
}
