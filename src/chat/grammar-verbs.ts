/**
 * What the words of each `/pipewatch` command mean: which word fills which place, and
 * whether it is a pipeline the store knows, a number, an id or a duration. A rule
 * command's values are kept with where each was written, so that the rule schema's
 * verdict on a value can be shown at its word.
 */
import { wholeWordsMatcher } from '../alerts/silence-matchers.js';
import { parseTarget, targetItem } from '../domain/targets.js';
import { formatDuration, parseDuration } from '../lib/duration.js';
import { parseZonedInstant, toUtcIso, type UtcIso } from '../lib/time.js';
import { findLocation } from '../rules/location-check.js';
import type {
  CapacityInput,
  ChatCommand,
  ChatVocabulary,
  DeadlinesInput,
  EscalateInput,
  NoticesInput,
  Verb,
} from './commands.js';
import { DEFAULT_BEFORE, MUTE_MAX_MS, MUTE_MIN_MS, type Spans, VERBS } from './commands.js';
import { collectArguments, Reading } from './grammar-reading.js';
import { type ChatProblem, nearest, type Word, type WordPart } from './words.js';

interface Keys {
  keys: string[];
  aliases?: Record<string, string>;
  lists?: string[];
  bare?: string[];
}

/** The keys of each command; `pipelines:`, `location:`, `id:`… name what may stand alone. */
export const KEYS: Record<Verb, Keys> = {
  subscribe: {
    keys: ['pipelines', 'type', 'category', 'status', 'text', 'on', 'escalate', 'to'],
    aliases: { pipeline: 'pipelines', types: 'type', categories: 'category', statuses: 'status' },
    lists: ['pipelines', 'type', 'category', 'status', 'on', 'to'],
  },
  remind: {
    keys: ['pipelines', 'field', 'before'],
    aliases: { pipeline: 'pipelines' },
    lists: ['pipelines', 'before'],
  },
  oac: {
    keys: ['pipeline', 'location', 'below', 'clear', 'cycles'],
    aliases: { pipelines: 'pipeline', locations: 'location', cycle: 'cycles' },
    lists: ['cycles'],
  },
  list: { keys: [] },
  unsubscribe: { keys: ['id'] },
  mute: {
    keys: ['pipeline', 'type', 'category', 'status', 'for', 'from', 'until'],
    aliases: { pipelines: 'pipeline', types: 'type', categories: 'category', statuses: 'status' },
    lists: ['type', 'category', 'status'],
    bare: ['for', 'from', 'until'],
  },
  unmute: { keys: ['id'] },
  help: { keys: ['command'] },
};
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const POSITIONAL = ['pipelines', 'pipeline', 'location', 'id', 'for', 'command'];
const ALL_KEYS = Object.values(KEYS).flatMap((k) => [...k.keys, ...Object.keys(k.aliases ?? {})]);

function subscribe(r: Reading): ChatCommand {
  const notices: Record<string, unknown> = {};
  r.pipelines('notices', notices);
  r.entries(notices);
  const text = r.args.options.get('text');
  if (text) {
    r.span('notices.text', text.word, 'text');
    notices.text = text.value.text;
  }
  const on = r.args.options.get('on');
  if (on) notices.on = r.list(on, 'notices.on', true);
  const escalate = escalation(r);
  return { verb: 'subscribe', notices: notices as NoticesInput, ...(escalate ? { escalate } : {}) };
}

/**
 * `escalate:30m to:pagerduty:KEY`: where an alert nobody acknowledged goes, and after
 * how long. Each `to` value is a target as `subs add` takes one.
 */
function escalation(r: Reading): EscalateInput | undefined {
  const after = r.args.options.get('escalate');
  const to = r.args.options.get('to');
  if (!after) {
    if (to)
      r.problem(to.word, 'to: says where an escalation goes; add after how long: escalate:30m');
    return undefined;
  }
  if (!to) {
    r.problem(after.word, 'escalate: needs where to: to:pagerduty:<integration key>');
    return undefined;
  }
  r.span('escalate.after', after.value, 'escalate');
  const targets: unknown[] = [];
  to.items.forEach((item, i) => {
    r.span(`escalate.to.${i}`, item, `target '${item.text}'`);
    try {
      targets.push(targetItem(parseTarget(item.text)));
    } catch (error) {
      r.problem(item, error instanceof Error ? error.message : String(error));
    }
  });
  return { after: after.value.text.trim(), to: targets } as EscalateInput;
}

function remind(r: Reading): ChatCommand {
  const deadlines: Record<string, unknown> = {};
  r.pipelines('deadlines', deadlines);
  const field = r.args.options.get('field');
  if (field) {
    r.span('deadlines.field', field.value, 'field');
    deadlines.field = field.value.text.trim().toLowerCase();
  }
  const before = r.args.options.get('before');
  deadlines.before = before ? r.list(before, 'deadlines.before', false) : [...DEFAULT_BEFORE];
  return { verb: 'remind', deadlines: deadlines as DeadlinesInput };
}

function oac(r: Reading): ChatCommand {
  const capacity: Record<string, unknown> = {};
  const pipeline = r.slot('pipeline');
  const location = r.slot('location');
  r.extra('; a location name with spaces goes in quotes: "Station 85"');
  if (!location || !pipeline) {
    const needs = pipeline ? 'a location' : location ? 'a pipeline' : 'a pipeline and a location';
    r.missing(`oac needs ${needs}: oac transco "Station 85" below:10%`);
  }
  if (pipeline && (pipeline.items.length !== 1 || pipeline.value.text.toLowerCase() === 'all')) {
    r.problem(pipeline, 'oac takes one pipeline: a location belongs to one');
  } else if (pipeline) {
    const slug = pipeline.items[0];
    const before = r.problems.length;
    const named = r.pipeline(slug);
    capacity.pipelines = [named];
    r.span('capacity.pipelines', slug, `pipeline '${slug.text}'`);
    // Only a pipeline the API tracks has locations to look in.
    if (location && r.problems.length === before) knownLocation(r, location.value, named);
  }
  if (location) {
    capacity.locations = [location.value.text];
    r.span('capacity.locations', location.value, 'location');
  }
  const below = r.args.options.get('below');
  if (!r.args.written.has('below')) {
    r.missing('oac needs below:N, in Dth (below:100,000) or in % of OPC (below:10%)');
  }
  const threshold = below && r.amount(below);
  if (threshold) {
    const key = threshold.percent ? 'oac_pct_below' : 'oac_below';
    capacity[key] = threshold.value;
    r.span(`capacity.${key}`, below.word, 'below');
  }
  const clear = r.args.options.get('clear');
  const recovery = clear && r.amount(clear);
  if (recovery && threshold && recovery.percent !== threshold.percent) {
    const fix = threshold.percent ? `${clear.value.text}%` : clear.value.text.replace('%', '');
    const unit = threshold.percent ? '%' : 'Dth';
    r.problem(clear.word, `clear: must be in the unit of below: (${unit}), such as clear:${fix}`);
  } else if (recovery) {
    capacity.clear_above = recovery.value;
    r.span('capacity.clear_above', clear.word, 'clear');
  }
  const cycles = r.args.options.get('cycles');
  if (cycles) capacity.cycles = r.list(cycles, 'capacity.cycles', true);
  return { verb: 'oac', capacity: capacity as CapacityInput };
}

/**
 * A location of `slug`, matched as the engine matches it (its name or identifier, or
 * whole words of it); a problem with the one meant when the pipeline's locations are
 * known and none matches: an `oac` on a typo would never fire.
 */
function knownLocation(r: Reading, at: WordPart, slug: string): void {
  const locations = r.vocabulary.locations?.(slug);
  if (!locations || at.text.trim() === '') return;
  const found = findLocation(at.text.trim(), locations);
  if (found.found) return;
  const meant = found.suggestion;
  r.problem(
    at,
    `unknown location '${at.text.trim()}' on ${slug}${meant ? ` — did you mean '${meant}'?` : ''}`,
    meant,
  );
}

/** `from:` or `until:` as an instant with its zone, or a problem at its word. */
function instant(r: Reading, key: 'from' | 'until'): UtcIso | undefined {
  const option = r.args.options.get(key);
  if (!option) return undefined;
  const at = parseZonedInstant(option.value.text);
  if (at === undefined) {
    r.problem(
      option.value,
      `${key}: '${option.value.text}' is not a time with its zone, such as 2026-12-01T09:00-06:00 or 2026-12-01T15:00Z`,
    );
    return undefined;
  }
  return toUtcIso(at);
}

function mute(r: Reading): ChatCommand | undefined {
  const during = r.args.options.get('for');
  const hasUntil = r.args.written.has('until');
  if (!r.args.written.has('for') && !hasUntil) {
    const i = r.args.positionals.findIndex((w) => parseDuration(w.text) !== undefined);
    const w = i < 0 ? undefined : r.args.positionals.splice(i, 1)[0];
    if (w) r.problem(w, `write for before the duration: mute … for ${w.text}`, `for ${w.text}`);
    else r.missing('mute needs for DURATION or until TIME: mute transco for 4h, or mute for 1h');
  }
  if (during && hasUntil) r.problem(during.word, 'mute takes for DURATION or until TIME, not both');
  const at = r.slot('pipeline');
  r.extra();
  let pipeline: string | undefined;
  if (at && at.items.length !== 1) {
    r.problem(at, 'mute takes one pipeline, or none for the whole channel');
  } else if (at && at.value.text.toLowerCase() !== 'all') {
    pipeline = r.pipeline(at.value);
    if (r.vocabulary.pipelines.length === 0 && !SLUG.test(pipeline)) {
      r.problem(at, `'${at.text}' is not a pipeline slug such as 'texas-eastern'`);
    }
  }
  const lists: Record<string, unknown> = {};
  r.entries(lists);
  const fields = FIELDS.flatMap(([key, field]) => {
    const values = lists[field];
    return Array.isArray(values) && values.length > 0 ? [{ key, values: values as string[] }] : [];
  });
  const from = instant(r, 'from');
  const until = instant(r, 'until');
  let ms: number | undefined;
  if (during) {
    ms = parseDuration(during.value.text);
    if (ms === undefined) {
      r.problem(
        during.value,
        `for: '${during.value.text}' is not a duration, such as 30m, 4h or 2d`,
      );
    } else if (ms < MUTE_MIN_MS || ms > MUTE_MAX_MS) {
      const range = `from ${formatDuration(MUTE_MIN_MS)} to ${formatDuration(MUTE_MAX_MS)}`;
      r.problem(during.value, `for: a mute lasts ${range}, not ${during.value.text}`);
    }
  }
  if (ms === undefined && until === undefined) return undefined;
  return {
    verb: 'mute',
    ...(pipeline === undefined ? {} : { pipeline }),
    ...(fields.length > 0
      ? {
          matchers: fields.map(({ key, values }) => wholeWordsMatcher(key, values)),
          fields: fields.map(({ key, values }) => `${key}:${values.join(',')}`).join(' '),
        }
      : {}),
    ...(ms === undefined ? {} : { forMs: ms }),
    ...(from === undefined ? {} : { from }),
    ...(until === undefined ? {} : { until }),
  };
}

/** The notice fields a mute takes, by option and by the list `entries` fills. */
const FIELDS = [
  ['type', 'types'],
  ['category', 'categories'],
  ['status', 'statuses'],
] as const;

function unsubscribe(r: Reading): ChatCommand | undefined {
  const at = r.slot('id');
  r.extra();
  if (!at) r.missing('unsubscribe needs an id, as list shows them (12 or #12), or all');
  if (at?.value.text.toLowerCase() === 'all') return { verb: 'unsubscribe', id: 'all' };
  const n = at && r.id(at.value);
  return n === undefined ? undefined : { verb: 'unsubscribe', id: n };
}

function unmute(r: Reading): ChatCommand {
  const at = r.slot('id');
  r.extra();
  const n = at && r.id(at.value);
  return { verb: 'unmute', ...(n === undefined ? {} : { id: n }) };
}

function help(r: Reading): ChatCommand {
  const at = r.slot('command');
  r.extra();
  const topic = at && verbOf(at.value, r.problems);
  return { verb: 'help', ...(topic ? { topic } : {}) };
}

function list(r: Reading): ChatCommand {
  r.extra();
  return { verb: 'list' };
}

const READERS = { subscribe, remind, oac, list, unsubscribe, mute, unmute, help } as const;

/** The verb a word names; otherwise a problem, with the verb meant when one is close. */
export function verbOf(at: WordPart, problems: ChatProblem[]): Verb | undefined {
  const word = at.text.toLowerCase();
  if ((VERBS as readonly string[]).includes(word)) return word as Verb;
  const meant = nearest(word, VERBS);
  const others = `; commands are ${VERBS.join(', ')}`;
  problems.push({
    message: `unknown command '${at.raw}'${meant ? ` — did you mean '${meant}'?` : others}`,
    word: at.raw,
    column: at.column,
    ...(meant ? { suggestion: meant } : {}),
  });
  return undefined;
}

/** What the words after a verb say: the command (unless a word was wrong), and where each value was written. */
export function readCommand(
  verb: Verb,
  words: readonly Word[],
  vocabulary: ChatVocabulary,
  end: number,
): { command: ChatCommand | undefined; problems: ChatProblem[]; spans: Spans } {
  const keys = KEYS[verb];
  const problems: ChatProblem[] = [];
  const elsewhere = ALL_KEYS.filter((k) => !keys.keys.includes(k) && !keys.aliases?.[k]);
  const spec = { verb, ...keys, unlisted: POSITIONAL, elsewhere };
  const r = new Reading(vocabulary, verb, collectArguments(words, spec, problems), end);
  r.problems.push(...problems);
  const command = READERS[verb](r);
  return { command, problems: r.problems, spans: r.spans };
}
