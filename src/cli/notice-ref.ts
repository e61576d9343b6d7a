/**
 * Finds the stored notice a person named (`ids.ts` `parseNoticeRef`): by its API id or by
 * its pipeline's own identifier, as `why` and `rules test --notice` take them. An
 * identifier that names several notices (two pipelines number alike, or a pipeline used
 * it again) is not guessed at: the candidates are listed, each with how to name it alone.
 */
import type { AsyncStore } from '../store/async-store.js';
import type { NoticeSummary, StoredNotice } from '../store/notices.js';
import type { CliContext } from './context.js';
import { ExitCode } from './exit-status.js';
import { clip, table } from './format.js';
import type { NoticeRef } from './ids.js';

/** Most candidates listed. */
const MAX_CANDIDATES = 20;

/** What a name found: one notice, several, or none. */
export type NoticeMatch =
  | { notice: StoredNotice }
  | { candidates: NoticeSummary[]; more: boolean }
  | undefined;

/** The stored notices `ref` names. */
export async function matchNotice(store: AsyncStore, ref: NoticeRef): Promise<NoticeMatch> {
  const byId = ref.id === undefined ? undefined : await store.notices.get(ref.id);
  let named: NoticeSummary[] = [];
  if (ref.identifier !== undefined) {
    named = await store.notices.withIdentifier(ref.identifier, ref.pipeline, MAX_CANDIDATES + 1);
    // `a:b` may be an identifier with a colon rather than a pipeline's.
    if (named.length === 0 && ref.pipeline !== undefined)
      named = await store.notices.withIdentifier(ref.text, undefined, MAX_CANDIDATES + 1);
  }
  const candidates = [...(byId ? [byId] : []), ...named.filter((n) => n.id !== byId?.id)];
  if (candidates.length === 0) return undefined;
  if (candidates.length === 1) {
    const only = byId ?? (await store.notices.get(candidates[0].id));
    return only ? { notice: only } : undefined;
  }
  return {
    candidates: candidates.slice(0, MAX_CANDIDATES),
    more: candidates.length > MAX_CANDIDATES,
  };
}

/**
 * The notice `ref` names; when none or several, says so on stderr, sets the exit status
 * (1 not stored, 2 ambiguous: the name is the user's to make precise) and returns
 * undefined.
 */
export async function namedNotice(
  ctx: CliContext,
  store: AsyncStore,
  ref: NoticeRef,
): Promise<StoredNotice | undefined> {
  const match = await matchNotice(store, ref);
  if (match && 'notice' in match) return match.notice;
  if (!match) {
    const pruned = ref.id !== undefined && (await store.notices.wasPruned(ref.id));
    ctx.err(
      pruned
        ? `pipewatch: notice ${ref.text} is no longer stored: PIPEWATCH_RETENTION removed it, unseen for that long (its id, content hash and version are kept, so it does not alert again)`
        : `pipewatch: notice ${ref.text} is not stored (it may be older than the baseline, or not synced yet)`,
    );
    ctx.exitCode = ExitCode.Failed;
    return undefined;
  }
  const { candidates, more } = match;
  ctx.err(
    `pipewatch: ${ref.text} names ${more ? 'more than ' : ''}${candidates.length} stored notices; name one as shown in the first column (pipeline:identifier, or '#' and its API id):`,
  );
  const rows = candidates.map((c) => [
    nameOf(c, candidates, more, ref),
    String(c.id),
    c.pipeline_slug,
    c.identifier,
    c.posted_at ?? '-',
    clip(c.subject, 60),
  ]);
  const lines = table(['name it', 'id', 'pipeline', 'identifier', 'posted', 'subject'], rows);
  for (const line of lines.split('\n')) ctx.err(`  ${line}`);
  if (more) ctx.err(`  (the ${MAX_CANDIDATES} latest shown)`);
  ctx.exitCode = ExitCode.Usage;
  return undefined;
}

/**
 * How to name candidate `c` alone: `transco:26-0524` when no other candidate shares its
 * pipeline and identifier (and none was left out), else `'#8812'`, quoted for the shell,
 * where `#` starts a comment.
 */
function nameOf(
  c: NoticeSummary,
  all: readonly NoticeSummary[],
  more: boolean,
  ref: NoticeRef,
): string {
  const same = (a: NoticeSummary) =>
    a.pipeline_slug === c.pipeline_slug &&
    a.identifier.toLowerCase() === c.identifier.toLowerCase();
  const identifierMatches = c.identifier.toLowerCase() === ref.identifier?.toLowerCase();
  const unique = !more && all.filter(same).length === 1 && c.identifier !== '';
  return identifierMatches && unique ? `${c.pipeline_slug}:${c.identifier}` : `'#${c.id}'`;
}
