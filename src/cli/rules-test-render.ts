/**
 * `rules test --render`: what each firing verdict would send, per target, through the
 * channels' own renderers. An email's HTML part goes to a file (under `--render-dir`, or
 * a new directory under the OS temp dir) whose path is printed; the rest is printed whole.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { alertKey } from '../alerts/context.js';
import type { PlannedAlert, Verdict } from '../alerts/explain.js';
import { type Rendered, type RenderOptions, renderFor } from '../channels/rendered.js';
import type { Alert } from '../channels/types.js';
import type { Target } from '../domain/targets.js';
import type { Rule } from '../rules/types.js';

/** A rendered message, with where an email's HTML part was written. */
export type RenderedOut = Rendered & { html_file?: string };

/** Options of a render session. */
export interface RendererOptions extends RenderOptions {
  /** Where HTML parts go; unset: a new directory under the OS temp dir, made on first use. */
  dir?: string | undefined;
}

const safe = (text: string) =>
  text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60) || 'x';

/** Renders the alerts of firing verdicts for their rules' targets. */
export class Renderer {
  private readonly targets: Map<string, Target[]>;
  private dir: string | undefined;
  private files = 0;

  constructor(
    rules: readonly Rule[],
    private readonly options: RendererOptions,
  ) {
    this.targets = new Map(rules.map((r) => [r.name, r.notify]));
  }

  /** One message per target of a firing verdict; none for a verdict that sends nothing. */
  verdict(v: Verdict): RenderedOut[] {
    if (!v.fires || !v.alert) return [];
    return this.render(v.rule, [v.alert]);
  }

  /** The capacity alerts a rule fires at the next cycle, one message per target each. */
  capacity(rule: string, alerts: readonly PlannedAlert[]): RenderedOut[] {
    return alerts.flatMap((a) => this.render(rule, [a]));
  }

  private render(rule: string, planned: readonly PlannedAlert[]): RenderedOut[] {
    return (this.targets.get(rule) ?? []).map((target) => {
      const alerts: Alert[] = planned.map((p) => ({
        key: alertKey(rule, p.subject, target),
        payload: p.payload,
      }));
      const rendered: RenderedOut = renderFor(target, alerts, this.options);
      if (rendered.kind === 'email') rendered.html_file = this.writeHtml(rule, rendered.html);
      return rendered;
    });
  }

  private writeHtml(rule: string, html: string): string {
    if (this.dir === undefined) {
      if (this.options.dir === undefined) {
        this.dir = mkdtempSync(join(tmpdir(), 'pipewatch-render-'));
      } else {
        mkdirSync(this.options.dir, { recursive: true });
        this.dir = this.options.dir;
      }
    }
    this.files++;
    const file = join(this.dir, `${String(this.files).padStart(3, '0')}-${safe(rule)}.html`);
    writeFileSync(file, html);
    return file;
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Upstream text as a terminal shows it: tabs as spaces, no escape or control characters. */
const printable = (text: string) =>
  text.replace(/\r\n?/g, '\n').replace(/\t/g, '  ').replace(CONTROL, '');

const indent = (text: string, by: string) =>
  text
    .split('\n')
    .map((l) => (l === '' ? l : `${by}${l}`))
    .join('\n');

/** A rendered message for people: what is sent, whole, under a line naming the target. */
export function renderedText(r: RenderedOut, by = '    '): string {
  const json = (value: unknown) => indent(JSON.stringify(value, null, 2), `${by}  `);
  switch (r.kind) {
    case 'slack':
    case 'slack_dm':
      return `${by}→ ${r.target}: ${r.method}\n${json(r.arguments)}`;
    case 'discord':
    case 'discord_dm':
      return `${by}→ ${r.target}: ${r.route}\n${json(r.body)}`;
    case 'email': {
      const head = [
        `From: ${r.from}`,
        `To: ${r.to.join(', ')}`,
        `Subject: ${r.subject}`,
        `Message-ID: ${r.message_id}`,
        ...(r.in_reply_to ? [`In-Reply-To: ${r.in_reply_to}`] : []),
        ...Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`),
      ];
      return [
        `${by}→ ${r.target}: email`,
        indent(printable(head.join('\n')), `${by}  `),
        `${by}  text part:`,
        indent(printable(r.text), `${by}    `),
        `${by}  HTML part: ${r.html_file ?? '(not written)'}`,
      ].join('\n');
    }
    case 'webhook':
      return r.requests
        .map((q) =>
          [
            `${by}→ ${r.target}: ${q.method} ${q.url}`,
            indent(
              Object.entries(q.headers)
                .map(([k, v]) => `${k}: ${v}`)
                .join('\n'),
              `${by}  `,
            ),
            json(q.body),
          ].join('\n'),
        )
        .join('\n');
    case 'pagerduty':
      return `${by}→ ${r.target}: POST ${r.url}\n${json(r.events)}`;
    case 'teams':
      return r.messages.map((m) => `${by}→ ${r.target}: POST\n${json(m)}`).join('\n');
    case 'console':
      return `${by}→ ${r.target}:\n${indent(printable(r.text), `${by}  `)}`;
  }
}

/** A rendered message for `--json`: an email's HTML part by its file, a webhook's body parsed. */
export function renderedJson(r: RenderedOut): unknown {
  if (r.kind === 'email') {
    const { html: _html, ...rest } = r;
    return { ...rest, html_file: r.html_file ?? null };
  }
  if (r.kind === 'webhook') return { ...r, requests: r.requests.map(({ raw: _raw, ...q }) => q) };
  return r;
}
