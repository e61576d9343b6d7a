/**
 * A Teams card as plain text, for reading in a terminal where Teams is not at hand: each
 * text block on its lines, facts as `label: value`, a table's rows with ` | ` between
 * cells, then the buttons with their links. What upstream wrote stays as the card has
 * it; making it safe for a terminal is the caller's part.
 */
import type { Alert } from '../types.js';
import type { CardElement } from './card.js';
import { renderTeams } from './render.js';

function lines(e: CardElement): string[] {
  if (e.type === 'TextBlock') return [e.text];
  if (e.type === 'FactSet') return e.facts.map((f) => `${f.title}: ${f.value}`);
  return e.rows.map((r) => r.cells.map((c) => c.items.map((i) => i.text).join(' ')).join(' | '));
}

/** The cards `alerts` post at `now`, separated by a blank line. */
export function previewTeams(alerts: readonly Alert[], now: string): string {
  return alerts
    .map((a) => {
      const card = renderTeams(a.payload, now).attachments[0]?.content;
      if (!card) return '';
      const body = card.body.flatMap(lines);
      const actions = (card.actions ?? []).map((b) => `[${b.title}] ${b.url}`);
      return [...body, ...(actions.length > 0 ? ['', ...actions] : [])]
        .join('\n')
        .replace(/\u200b/g, '');
    })
    .join('\n\n');
}
