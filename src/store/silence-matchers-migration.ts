/**
 * Rewrites the matchers of the silences stored before matchers had operators: from
 * `{"pipelines":["transco"],"targets":["slack:C0GAS"]}` to one `=` matcher per value,
 * `[{"key":"pipeline","op":"=","value":"transco"},…]`. A silence whose matchers are not
 * of the old form (already converted, or damaged) is left as it is: reading it says so.
 */
import type BetterSqlite3 from 'better-sqlite3';

const OLD_LISTS = [
  ['pipelines', 'pipeline'],
  ['targets', 'target'],
  ['rules', 'rule'],
] as const;

/** The new form of old matchers, or undefined when `json` is not of the old form. */
function converted(json: string): string | undefined {
  let old: unknown;
  try {
    old = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof old !== 'object' || old === null || Array.isArray(old)) return undefined;
  const lists = old as Record<string, unknown>;
  const matchers: Array<{ key: string; op: '=' | '!~'; value: string }> = [];
  for (const [list, key] of OLD_LISTS) {
    const values = lists[list];
    if (values === undefined) continue;
    if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) return undefined;
    // An empty list matched nothing: it still does.
    if (values.length === 0) matchers.push({ key, op: '!~', value: '.*' });
    for (const value of values) matchers.push({ key, op: '=', value });
  }
  return JSON.stringify(matchers);
}

/** Converts every silence stored with matchers of the old form. */
export function convertSilenceMatchers(db: BetterSqlite3.Database): void {
  const update = db.prepare('UPDATE silences SET matchers_json = ? WHERE id = ?');
  const rows = db.prepare('SELECT id, matchers_json FROM silences').all() as Array<{
    id: number;
    matchers_json: string;
  }>;
  for (const r of rows) {
    const json = converted(r.matchers_json);
    if (json !== undefined) update.run(json, r.id);
  }
}
