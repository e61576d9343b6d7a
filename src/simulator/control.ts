/**
 * The control operations: add or change notices, publish capacity, inject faults, change
 * the catalog and move time. Tests script scenarios with them, in process or over HTTP.
 */
import { z } from 'zod';
import { addDays, type Cycle, gasDayOf, NOMINATION_CYCLES } from '../domain/gas-day.js';
import { errorMessage } from '../lib/error-text.js';
import { escapeHtml } from '../lib/escape-html.js';
import type { SimulatorCore } from './core.js';
import { SimulatorInputError } from './errors.js';
import { describeIssues } from './faults.js';
import { htmlToMobile, htmlToText } from './notice-html.js';
import { wireNotice } from './notice-store.js';
import { pipelineBySlug } from './pipelines.js';
import { formatDateTime, parseDateTime } from './sim-time.js';
import type {
  CatalogTable,
  FaultSpec,
  NoticeFields,
  PublishCycleInput,
  WireCapacity,
  WireNotice,
  WireTableField,
} from './types.js';

/** Control of a running simulator; the HTTP control API offers the same operations. */
export interface SimulatorControl {
  /** Adds a notice under a new id; posted_at and service_* default to simulated now. */
  addNotice(input: { pipeline_slug: string } & Partial<NoticeFields>): WireNotice;
  /** Changes a notice in place and bumps its service_updated_at. */
  updateNotice(id: number, changes: Partial<NoticeFields>): WireNotice;
  /** Publishes a cycle now; listed locations override generated ones by identifier. */
  publishCycle(input: PublishCycleInput): WireCapacity;
  /** The cycle `GET /ip/capacity/{slug}` serves as `latest` now, if any. */
  latestCycle(slug: string): { gasDay: string; cycle: Cycle } | null;
  /** Queues a fault for matching /api/v1 requests. */
  injectFault(fault: FaultSpec): void;
  /** Drops all queued faults. */
  clearFaults(): void;
  /** Adds a field to a catalog table, which changes the catalog hashes. */
  changeCatalog(table: CatalogTable, field: WireTableField): void;
  /** Moves simulated time forward. */
  advance(ms: number): void;
}

const text = z.string();
const noticeFieldsShape = {
  subject: text.optional(),
  identifier: text.optional(),
  url: text.optional(),
  category: text.optional(),
  type: text.optional(),
  status: text.optional(),
  notice: text.optional(),
  html: text.optional(),
  mobile: text.optional(),
  posted_at: text.optional(),
  effective_at: text.optional(),
  end_at: text.optional(),
  response_at: text.optional(),
  service_created_at: text.optional(),
  service_updated_at: text.optional(),
};

/** Notice fields a control request may set. */
export const noticeFieldsSchema = z.strictObject(noticeFieldsShape);
/** Input of addNotice. */
export const addNoticeSchema = z.strictObject({ pipeline_slug: z.string(), ...noticeFieldsShape });

const quantity = z.union([
  z.number().nonnegative().finite(),
  z
    .string()
    .regex(
      /^\d{1,3}(,\d{3})*$|^\d+$/,
      'expected a whole number, optionally with thousands separators',
    )
    .transform((s) => Number(s.replaceAll(',', ''))),
]);

/** Input of publishCycle. */
export const publishSchema = z.strictObject({
  pipeline_slug: z.string(),
  cycle: z.enum(NOMINATION_CYCLES),
  gas_day: z.iso.date().optional(),
  locations: z
    .array(
      z.strictObject({
        identifier: z.string().min(1),
        location: text.optional(),
        flow: text.optional(),
        qti: text.optional(),
        zone: text.optional(),
        dc: quantity.optional(),
        opc: quantity.optional(),
        tsq: quantity.optional(),
        oac: quantity.optional(),
        it: text.optional(),
        all: text.optional(),
        reason: text.optional(),
      }),
    )
    .optional(),
  on_schedule: z.boolean().optional(),
});

/** Input of changeCatalog. */
export const catalogSchema = z.strictObject({
  table: z.enum(['notices', 'pipelines']),
  field: z.strictObject({
    name: z.string().min(1),
    type: z.string().min(1),
    description: z.string(),
  }),
});

/** Validates control input, turning zod issues into a SimulatorInputError. */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown, what: string): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success)
    throw new SimulatorInputError(`invalid ${what}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/** Keeps the three body forms consistent when a control request sets only some of them. */
function withBodies(changes: Partial<NoticeFields>): Partial<NoticeFields> {
  const out = { ...changes };
  if (out.html === undefined && out.notice !== undefined) {
    out.html = `<p>${escapeHtml(out.notice).replaceAll('\n', '<br>')}</p>`;
  }
  if (out.html !== undefined) {
    out.notice ??= htmlToText(out.html);
    out.mobile ??= htmlToMobile(out.html);
  }
  return out;
}

/** The control operations of one simulator. */
export function createControl(core: SimulatorCore): SimulatorControl {
  return {
    addNotice(input) {
      const { pipeline_slug, ...fields } = parseInput(addNoticeSchema, input, 'notice');
      const pipeline = pipelineBySlug(pipeline_slug);
      if (!pipeline) throw new SimulatorInputError(`unknown pipeline '${pipeline_slug}'`);
      const now = core.sync();
      const created = core.generator.startManual(pipeline, now);
      const at = formatDateTime(now);
      const defaults = { posted_at: at, service_created_at: at, service_updated_at: at };
      return wireNotice(core.store.update(created.id, { ...defaults, ...withBodies(fields) }));
    },

    updateNotice(id, changes) {
      const fields = parseInput(noticeFieldsSchema, changes, 'notice changes');
      const now = core.sync();
      const notice = core.store.get(id);
      if (!notice) throw new SimulatorInputError(`no notice with id ${id}`);
      const previous = parseDateTime(notice.service_updated_at);
      const bumped = Number.isNaN(previous) ? now : Math.max(now, previous + 1000);
      const update = { service_updated_at: formatDateTime(bumped), ...withBodies(fields) };
      return wireNotice(core.store.update(id, update));
    },

    publishCycle(input) {
      const parsed = parseInput(publishSchema, input, 'capacity cycle');
      const pipeline = pipelineBySlug(parsed.pipeline_slug);
      if (!pipeline?.capacity) {
        throw new SimulatorInputError(`no capacity data for pipeline '${parsed.pipeline_slug}'`);
      }
      const now = core.sync();
      const { cycle } = parsed;
      const today = gasDayOf(new Date(now));
      const gasDay =
        parsed.gas_day ?? (cycle === 'timely' || cycle === 'evening' ? addDays(today, 1) : today);
      const ref = { gasDay, cycle };
      core.capacity.publish(
        pipeline.slug,
        ref,
        now,
        parsed.locations ?? [],
        parsed.on_schedule ?? false,
      );
      return core.capacity.result(pipeline, ref, core.horizon());
    },

    latestCycle(slug) {
      core.sync();
      return core.capacity.resolve(slug, 'latest', undefined, core.horizon());
    },

    injectFault(fault) {
      core.faults.inject(fault);
    },

    clearFaults() {
      core.faults.clear();
    },

    changeCatalog(table, field) {
      const parsed = parseInput(catalogSchema, { table, field }, 'catalog change');
      core.catalog.addField(parsed.table, parsed.field);
    },

    advance(ms) {
      try {
        core.time.advance(ms);
      } catch (error) {
        throw new SimulatorInputError(errorMessage(error));
      }
      core.sync();
    },
  };
}
