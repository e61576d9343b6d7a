/**
 * Suggestions while a command is typed (Discord's autocomplete): the tracked pipelines
 * whose slug or name holds what was typed, and the locations of a pipeline's latest
 * capacity cycle whose name or identifier holds it. Prefix matches come first, then the rest in
 * order; at most `SUGGESTIONS_MAX` (Discord's limit on choices).
 */
import type { AsyncStore } from '../store/async-store.js';

/** Most suggestions offered at once (Discord allows 25 choices). */
export const SUGGESTIONS_MAX = 25;

/** Longest suggestion label or value (Discord's limit on a choice's name and value). */
const CHOICE_MAX = 100;

/** One suggestion: what is shown, and what goes into the command when it is picked. */
export interface ChatSuggestion {
  label: string;
  value: string;
}

/** What is being typed: a pipeline (`pipelines`, `pipeline`) or a location of `pipeline`. */
export type SuggestionField =
  | { kind: 'pipeline' }
  | { kind: 'location'; pipeline: string | undefined };

function clipped(text: string): string {
  return text.length <= CHOICE_MAX ? text : `${text.slice(0, CHOICE_MAX - 1)}…`;
}

/** The candidates holding `typed` (any case), those starting with it first. */
function ranked<T>(items: readonly T[], words: (item: T) => string[], typed: string): T[] {
  const t = typed.trim().toLowerCase();
  if (t === '') return items.slice(0, SUGGESTIONS_MAX);
  const starts: T[] = [];
  const holds: T[] = [];
  for (const item of items) {
    const w = words(item).map((x) => x.toLowerCase());
    if (w.some((x) => x.startsWith(t))) starts.push(item);
    else if (w.some((x) => x.includes(t))) holds.push(item);
    if (starts.length >= SUGGESTIONS_MAX) break;
  }
  return [...starts, ...holds].slice(0, SUGGESTIONS_MAX);
}

/**
 * The suggestions for what is typed in `field`. For `pipelines` (several, space- or
 * comma-separated), only the last word is completed and the ones before are kept.
 */
export async function suggestions(
  store: AsyncStore,
  field: SuggestionField,
  typed: string,
): Promise<ChatSuggestion[]> {
  if (field.kind === 'pipeline') {
    const cut = Math.max(typed.lastIndexOf(','), typed.lastIndexOf(' ')) + 1;
    const before = typed.slice(0, cut);
    const pipelines = await store.pipelines.all();
    return ranked(pipelines, (p) => [p.slug, p.name], typed.slice(cut))
      .map((p) => ({ label: clipped(`${p.slug} (${p.name})`), value: `${before}${p.slug}` }))
      .filter((s) => s.value.length <= CHOICE_MAX);
  }
  if (!field.pipeline) return [];
  const cycle = await store.capacity.latest(field.pipeline.trim().toLowerCase());
  if (!cycle) return [];
  const locations = await store.capacity.locations(cycle.id);
  return ranked(locations, (l) => [l.location, l.identifier], typed).map((l) => ({
    label: clipped(l.identifier ? `${l.location} (${l.identifier})` : l.location),
    // A name too long for a choice goes in as its identifier, which matches it too (the
    // API's row id would match nothing).
    value: l.location.length <= CHOICE_MAX || !l.identifier ? l.location : l.identifier,
  }));
}
