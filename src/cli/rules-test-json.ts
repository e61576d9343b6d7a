/**
 * `rules test --json`: the same document whatever the number of notices, written as the
 * notices are judged (each one's entry as it comes, the capacity rules and the summary at
 * the end), so a long window is reported whole without being held in memory.
 */
import type { Verdict } from '../alerts/explain.js';
import type { CapacityJudgement } from '../alerts/explain-capacity.js';
import type { CliContext } from './context.js';
import { toJson } from './format.js';
import type {
  NoticeReport,
  ReportWriter,
  ShownRules,
  Tally,
  TestScope,
} from './rules-test-output.js';
import { type Renderer, renderedJson } from './rules-test-render.js';

function verdictJson(
  v: Verdict,
  renderer: Renderer | undefined,
  shown: ShownRules,
): Record<string, unknown> {
  const { alert: _alert, ...rest } = v;
  const out = { ...rest, source: shown.sources.get(v.rule) ?? null };
  return renderer ? { ...out, rendered: renderer.verdict(v).map(renderedJson) } : out;
}

const indent = (json: string, by: string) => json.replace(/^/gm, by);

/**
 * The report as JSON (ISO 8601 UTC datetimes, `null` for absent ones), laid out as one
 * `JSON.stringify(report, null, 2)` would lay it out. One notice's entry waits for the
 * next, which decides whether a comma follows it.
 */
export class JsonReport implements ReportWriter {
  private pending: string | undefined;
  private started = false;

  constructor(
    private readonly ctx: CliContext,
    private readonly scope: TestScope,
    private readonly renderer: Renderer | undefined,
    private readonly shown: ShownRules,
  ) {}

  private head(notices: '[' | '[],'): void {
    const { now, source, file, since } = this.scope;
    const head = toJson({ now, source, file, since }).replace(/\n}$/, '');
    this.ctx.out(`${head},\n  "notices": ${notices}`);
  }

  notice(r: NoticeReport): void {
    const entry = indent(
      toJson({
        id: r.notice.id,
        pipeline_slug: r.notice.pipeline_slug,
        subject: r.notice.subject,
        posted_at: r.notice.posted_at,
        stored: r.stored,
        baseline: 'baseline' in r.notice ? r.notice.baseline : null,
        first_seen_at: 'first_seen_at' in r.notice ? r.notice.first_seen_at : null,
        verdicts: r.every().map((v) => verdictJson(v, this.renderer, this.shown)),
      }),
      '    ',
    );
    if (!this.started) this.head('[');
    this.started = true;
    if (this.pending !== undefined) this.ctx.out(`${this.pending},`);
    this.pending = entry;
  }

  end(capacity: readonly CapacityJudgement[], tally: Tally): void {
    const { renderer, shown } = this;
    if (this.pending === undefined) this.head('[],');
    else this.ctx.out(`${this.pending}\n  ],`);
    const tail = toJson({
      capacity: capacity.map((c) => ({
        rule: c.rule,
        source: shown.sources.get(c.rule) ?? null,
        threshold: c.threshold,
        cycles: c.cycles,
        locations: c.locations,
        verdicts: c.verdicts.map((v) => verdictJson(v, undefined, shown)),
        ...(renderer ? { rendered: renderer.capacity(c.rule, c.alerts).map(renderedJson) } : {}),
      })),
      summary: tally.summary(capacity, shown.never).map((s) => ({
        ...s,
        source: shown.sources.get(s.rule) ?? null,
      })),
    });
    this.ctx.out(tail.replace(/^{\n/, ''));
  }
}
