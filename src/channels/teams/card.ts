/**
 * The parts of an Adaptive Card (schema 1.5) pipewatch uses, and the message a Teams
 * workflow takes: `{"type":"message","attachments":[{"contentType":
 * "application/vnd.microsoft.card.adaptive","contentUrl":null,"content":<card>}]}`, the
 * body of the "Post to a channel when a webhook request is received" template. Text
 * given to these builders must already be safe (`escape.ts`), but for `when` and
 * `footer`, which make safe what they are given.
 */
import { localTime } from '../text.js';
import { inline } from './escape.js';

/** A line or paragraph of (safe) Markdown. */
export interface TextBlock {
  type: 'TextBlock';
  text: string;
  wrap: true;
  style?: 'heading';
  size?: 'Small' | 'Medium' | 'Large';
  weight?: 'Bolder';
  isSubtle?: true;
  spacing?: 'None' | 'Small' | 'Medium';
}

/** Label and value pairs. */
export interface FactSet {
  type: 'FactSet';
  facts: Array<{ title: string; value: string }>;
}

/** A table of plain cells, the first row its heading. */
export interface Table {
  type: 'Table';
  columns: Array<{ width: number }>;
  rows: Array<{ type: 'TableRow'; cells: Array<{ type: 'TableCell'; items: TextBlock[] }> }>;
  firstRowAsHeaders: true;
  gridStyle: 'default';
}

/** What a card's body holds. */
export type CardElement = TextBlock | FactSet | Table;

/** A button that opens a link. */
export interface OpenUrl {
  type: 'Action.OpenUrl';
  title: string;
  url: string;
}

/** An Adaptive Card as Teams shows it: full width, for the tables. */
export interface AdaptiveCard {
  type: 'AdaptiveCard';
  $schema: 'http://adaptivecards.io/schemas/adaptive-card.json';
  version: '1.5';
  body: CardElement[];
  actions?: OpenUrl[];
  msteams: { width: 'Full' };
}

/** What a Teams workflow is sent. */
export interface TeamsMessage {
  type: 'message';
  attachments: Array<{
    contentType: 'application/vnd.microsoft.card.adaptive';
    contentUrl: null;
    content: AdaptiveCard;
  }>;
}

/** The card in the message a workflow takes. */
export function message(body: CardElement[], actions: OpenUrl[] = []): TeamsMessage {
  const card: AdaptiveCard = {
    type: 'AdaptiveCard',
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    version: '1.5',
    body,
    ...(actions.length > 0 ? { actions } : {}),
    msteams: { width: 'Full' },
  };
  return {
    type: 'message',
    attachments: [
      { contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card },
    ],
  };
}

/** An instant in the pipeline's zone, in UTC when the zone is unknown. */
export function when(iso: string, zone: string): string {
  if (Number.isNaN(Date.parse(iso))) return inline(iso, 60);
  try {
    return localTime(iso, zone);
  } catch {
    return localTime(iso, 'UTC');
  }
}

/** `pipewatch · rule transco-constraints`. */
export function footer(rules: readonly string[]): CardElement {
  const names = [...new Set(rules)].map((r) => inline(r, 100));
  return note(`pipewatch · rule${names.length === 1 ? '' : 's'} ${names.join(', ')}`);
}

/** The card's first line: what happened, large and bold. */
export function heading(text: string): TextBlock {
  return { type: 'TextBlock', text, wrap: true, style: 'heading', size: 'Large', weight: 'Bolder' };
}

/** A paragraph; `bold` for the notice's subject. */
export function text(value: string, bold = false): TextBlock {
  return { type: 'TextBlock', text: value, wrap: true, ...(bold ? { weight: 'Bolder' } : {}) };
}

/** Small grey text: the footer, the next cycle, a note. */
export function note(value: string): TextBlock {
  return { type: 'TextBlock', text: value, wrap: true, size: 'Small', isSubtle: true };
}

/** Label and value pairs; none makes no element. */
export function facts(pairs: ReadonlyArray<[string, string]>): FactSet[] {
  if (pairs.length === 0) return [];
  return [{ type: 'FactSet', facts: pairs.map(([title, value]) => ({ title, value })) }];
}

/** A table of safe cells, `widths` relative, the first row its heading. */
export function table(rows: readonly string[][], widths: readonly number[]): Table {
  return {
    type: 'Table',
    columns: widths.map((width) => ({ width })),
    rows: rows.map((cells, i) => ({
      type: 'TableRow',
      cells: cells.map((c) => ({
        type: 'TableCell',
        items: [
          { type: 'TextBlock', text: c, wrap: true, ...(i === 0 ? { weight: 'Bolder' } : {}) },
        ],
      })),
    })),
    firstRowAsHeaders: true,
    gridStyle: 'default',
  };
}

/** A button to a link (already checked by `safeUrl`). */
export function openUrl(title: string, url: string): OpenUrl {
  return { type: 'Action.OpenUrl', title, url };
}
