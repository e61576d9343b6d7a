/**
 * Discord's rules for a message's components (action rows of buttons and select menus),
 * counted here independently of the renderer, and an extension of the fake Discord that
 * refuses a message breaking them with Discord's 400 (50035), as Discord does.
 */
import type { DiscordFake, Json } from '../../fakes/discord.js';

const BUTTON = 2;
const SELECTS = new Set([3, 5, 6, 7, 8]);
const LINK_STYLE = 5;
const text = (v: unknown, min: number, max: number) =>
  typeof v === 'string' && [...v].length >= min && [...v].length <= max;

/** The first rule `components` breaks, at its path; undefined when it breaks none. */
export function componentProblem(components: unknown): string | undefined {
  if (components === undefined) return undefined;
  if (!Array.isArray(components)) return 'components: not a list';
  if (components.length > 5) return 'components: more than 5 action rows';
  const ids = new Set<string>();
  for (const [i, row] of (components as Json[]).entries()) {
    const at = `components.${i}`;
    if (row?.type !== 1) return `${at}: not an action row`;
    const items = Array.isArray(row.components) ? (row.components as Json[]) : [];
    if (items.length < 1 || items.length > 5) return `${at}: 1 to 5 components`;
    const selects = items.filter((c) => SELECTS.has(c?.type as number)).length;
    if (selects > 0 && items.length > 1) return `${at}: a select menu is alone on its row`;
    for (const [j, c] of items.entries()) {
      const where = `${at}.components.${j}`;
      if (c.type === BUTTON) {
        if (!Number.isInteger(c.style) || (c.style as number) < 1 || (c.style as number) > 5)
          return `${where}: no such button style`;
        if (!text(c.label, 1, 80)) return `${where}: label 1 to 80 characters`;
        if (c.style === LINK_STYLE) {
          if (typeof c.url !== 'string' || c.custom_id !== undefined)
            return `${where}: a link button has a url and no custom_id`;
          continue;
        }
      } else if (c.type === 3) {
        const options = Array.isArray(c.options) ? (c.options as Json[]) : [];
        if (options.length < 1 || options.length > 25) return `${where}: 1 to 25 options`;
        if (c.placeholder !== undefined && !text(c.placeholder, 0, 150))
          return `${where}: placeholder over 150 characters`;
        for (const o of options) {
          if (!text(o.label, 1, 100) || !text(o.value, 1, 100))
            return `${where}: an option's label and value are 1 to 100 characters`;
        }
        if (new Set(options.map((o) => o.value)).size !== options.length)
          return `${where}: option values repeat`;
      } else if (!SELECTS.has(c.type as number)) {
        return `${where}: no such component type`;
      }
      if (!text(c.custom_id, 1, 100)) return `${where}: custom_id 1 to 100 characters`;
      if (ids.has(c.custom_id as string)) return `${where}: custom_id repeated`;
      ids.add(c.custom_id as string);
    }
  }
  return undefined;
}

/** Makes `fake` refuse, as Discord does, a message whose components break a rule. */
export function checkComponents(fake: DiscordFake): void {
  fake.extend((req) => {
    const message = /^\/channels\/\d+\/messages(\/\d+)?$/.test(req.path);
    const problem = message ? componentProblem(req.body.components) : undefined;
    if (!problem) return undefined;
    return { status: 400, body: { message: 'Invalid Form Body', code: 50035, problem } };
  });
}
