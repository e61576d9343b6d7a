/**
 * The alert stage: turns ingest events into decisions and outbox rows, inside the
 * transaction that stored the events, with the rules in force. Rules can be replaced
 * while running (hot reload); each event is judged by the rules in force when it arrives.
 */

import type { Target } from '../domain/targets.js';
import type { IngestHooks } from '../ingest/events.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { toUtcIso } from '../lib/time.js';
import type { UnknownLocation } from '../rules/location-check.js';
import {
  type UnknownPipeline,
  type UnknownSettingPipeline,
  unknownPipelines,
  unknownSettingPipelines,
} from '../rules/pipeline-check.js';
import { subscriptionName, subscriptionRules } from '../rules/subscription.js';
import { formatProblem, type Rule, type RuleProblem } from '../rules/types.js';
import type { AsyncStore } from '../store/async-store.js';
import { decideCapacity } from './capacity-decisions.js';
import type { DecisionContext } from './context.js';
import { runEscalations } from './escalations.js';
import { LocationWatch } from './location-watch.js';
import { decideBaseline, decideNotices } from './notice-decisions.js';
import { resolveEndedNotices } from './notice-ends.js';
import { decideDrift, decideUnknownPipeline } from './operations.js';
import { scheduleReminders, sendDueReminders } from './reminders.js';
import { type CompiledRules, compileRules, extendRules } from './rules.js';
import { SilenceCache } from './silence-index.js';
import { summarizeEndedSilences } from './silence-summaries.js';
import { RecentSuperseders } from './superseded.js';

export interface AlertEngineDeps {
  store: AsyncStore;
  clock: Clock;
  logger: Logger;
  maxAlertAgeMs: number;
  /** Where schema drift is reported; undefined: it is only logged. */
  opsTarget?: Target | undefined;
  /**
   * Settings that name pipelines (`PIPEWATCH_PIPELINES` → its slugs): each slug is checked
   * against the API's list as the rules' are.
   */
  pipelineSettings?: Readonly<Record<string, readonly string[]>> | undefined;
}

export class AlertEngine {
  private compiled: CompiledRules;
  private fileRules: readonly Rule[];
  /** Unknown slugs already logged (`rule|slug`), so each is logged once per run. */
  private readonly reported = new Set<string>();
  /** Subscriptions' rules by id, parsed once: a stored subscription's rule never changes. */
  private readonly parsed = new Map<number, Rule | RuleProblem>();
  /** Invalid subscriptions already logged, so each is logged once per run. */
  private readonly invalid = new Set<string>();
  /** The capacity rules' location entries, checked against the capacity seen. */
  private readonly locations: LocationWatch;

  constructor(
    private readonly deps: AlertEngineDeps,
    rules: readonly Rule[],
  ) {
    this.locations = new LocationWatch(deps);
    this.fileRules = rules;
    this.compiled = this.compile();
  }

  /** The rules in force: the rule files', then the subscriptions' that are not paused. */
  get rules(): readonly Rule[] {
    this.refresh();
    return this.compiled.all;
  }

  /** Replaces the rule files' rules (hot reload); subscriptions stay. */
  setRules(rules: readonly Rule[]): void {
    this.fileRules = rules;
    this.compiled = this.compile();
  }

  /** Puts the subscriptions as stored now in force (one was made, removed, paused or resumed). */
  reloadSubscriptions(): void {
    this.compiled = this.compile();
  }

  /** The subscriptions' revision the compiled rules were read at. */
  private revision = -1;

  /** Reads the subscriptions again when any process changed them since they were compiled. */
  private refresh(): void {
    if (this.deps.store.subscriptions.revision() !== this.revision) this.compiled = this.compile();
  }

  /** The subscriptions in force when the rules were compiled, by id, and the rule files then. */
  private compiledIds: readonly number[] = [];
  private compiledFiles: readonly Rule[] | undefined;

  private compile(): CompiledRules {
    const { subscriptions } = this.deps.store;
    this.revision = subscriptions.revision();
    // Only the subscriptions not parsed before are read in full.
    const ids = subscriptions.idsInForce();
    const kept = new Set(ids);
    for (const id of this.parsed.keys()) if (!kept.has(id)) this.parsed.delete(id);
    const fresh = ids.filter((id) => !this.parsed.has(id));
    const rows = fresh.flatMap((id) => subscriptions.get(id) ?? []);
    subscriptionRules(rows, this.parsed);
    // Subscriptions only added since (newer ids, the usual change) join the rules in force
    // as they are; any other change compiles them all again.
    const before = this.compiledIds;
    const grown =
      this.compiled !== undefined &&
      this.compiledFiles === this.fileRules &&
      before.length <= ids.length &&
      before.every((id, i) => ids[i] === id);
    const rules: Rule[] = [];
    const problems: RuleProblem[] = [];
    for (const id of grown ? ids.slice(before.length) : ids) {
      const parsed = this.parsed.get(id);
      if (!parsed) continue;
      if ('kind' in parsed) rules.push(parsed);
      else problems.push(parsed);
    }
    for (const p of problems) {
      const line = formatProblem(p);
      if (this.invalid.has(line)) continue;
      this.invalid.add(line);
      this.deps.logger.error({ problem: line }, `${line}; the subscription is not in force`);
    }
    const compiled = grown
      ? extendRules(this.compiled, rules)
      : compileRules([...this.fileRules, ...rules], this.compiled);
    this.compiledIds = ids;
    this.compiledFiles = this.fileRules;
    this.locations.setRules(compiled.all);
    return compiled;
  }

  /** What the notices decided lately supersede, across pages and syncs. */
  private readonly superseders = new RecentSuperseders();
  /** The silences by what they match, across pages and syncs while none changes. */
  private readonly silenceCache = new SilenceCache();

  private context(): DecisionContext {
    return {
      store: this.deps.store,
      now: toUtcIso(this.deps.clock.now()),
      superseders: this.superseders,
      silenceCache: this.silenceCache,
    };
  }

  /** The ingest hooks that decide; they run inside ingest's transactions. */
  hooks(extra: IngestHooks = {}): IngestHooks {
    return {
      notices: (events) => {
        this.refresh();
        decideNotices(this.context(), this.compiled, events, this.deps.maxAlertAgeMs);
        extra.notices?.(events);
      },
      baseline: (notices) => {
        this.refresh();
        decideBaseline(this.context(), this.compiled, notices);
        extra.baseline?.(notices);
      },
      capacity: (event) => {
        this.refresh();
        const ctx = this.context();
        decideCapacity(ctx, this.compiled, event);
        this.locations.capacity(ctx, event);
        extra.capacity?.(event);
      },
      schemaDrift: (event) => {
        if (this.deps.opsTarget) decideDrift(this.context(), this.deps.opsTarget, event);
        extra.schemaDrift?.(event);
      },
      pipelines: (event) => {
        this.reportUnknownPipelines(event.slugs);
        this.locations.pipelinesChanged();
        extra.pipelines?.(event);
      },
    };
  }

  /**
   * Reports every pipeline slug of the rules in force, and of the pipeline settings, that
   * the API does not track: a warning with the position (or the variable) and the slug
   * meant (once per rule or setting and slug), and an operations alert when there is a
   * target for them. Runs at start, after each rule
   * change, and each time the pipeline list is read; nothing while the list is unknown.
   */
  checkPipelines(): Array<UnknownPipeline | UnknownSettingPipeline> {
    const tracked = this.deps.store.pipelines.all().map((p) => p.slug);
    return this.deps.store.transaction(() => this.reportUnknownPipelines(tracked));
  }

  private reportUnknownPipelines(
    tracked: readonly string[],
  ): Array<UnknownPipeline | UnknownSettingPipeline> {
    const found: Array<UnknownPipeline | UnknownSettingPipeline> = unknownPipelines(
      this.compiled.all,
      tracked,
    );
    for (const [setting, slugs] of Object.entries(this.deps.pipelineSettings ?? {}))
      found.push(...unknownSettingPipelines(setting, slugs, tracked));
    for (const u of found) {
      const setting = 'setting' in u;
      const key = setting ? `${u.setting}|${u.slug}` : `${u.rule}|${u.slug}`;
      if (!this.reported.has(key)) {
        this.reported.add(key);
        this.deps.logger.warn(
          setting
            ? { setting: u.setting, pipeline: u.slug, suggestion: u.suggestion ?? null }
            : { rule: u.rule, pipeline: u.slug, suggestion: u.suggestion ?? null },
          setting
            ? `${u.message}; pipewatch leaves it out and runs on for the others`
            : `${formatProblem(u)}; the rule never fires for it`,
        );
      }
      if (this.deps.opsTarget) decideUnknownPipeline(this.context(), this.deps.opsTarget, u);
    }
    return found;
  }

  /**
   * Reports every location entry of the capacity rules in force that no location of its
   * pipelines' capacity stored in the last 7 days matches: a warning at its position with
   * the location meant, and an operations alert (once per rule and location). An entry
   * whose pipelines have no capacity stored yet is checked as their capacity arrives. Runs
   * at start and after each rule change; returns the entries that match nothing.
   */
  checkLocations(): UnknownLocation[] {
    return this.deps.store.transaction(() => this.locations.review(this.context()));
  }

  /**
   * Plans the reminders of a one-notice reminder subscription ("Remind me") for its notice
   * now, rather than at the notice's next change; returns what was planned, as the audit
   * says it. Call after the subscription is stored.
   */
  remindNow(subscription: number): string {
    this.reloadSubscriptions();
    const rule = this.compiled.deadlinesByName.get(subscriptionName(subscription));
    const noticeId = rule?.origin?.noticeId;
    const notice = noticeId === undefined ? undefined : this.deps.store.notices.get(noticeId);
    if (!rule || !notice) return 'no reminders: the subscription or its notice is not stored';
    return this.deps.store.transaction(() => {
      const ctx = this.context();
      const said = scheduleReminders(ctx, rule, notice);
      ctx.store.audit.record({
        at: ctx.now,
        rule: rule.name,
        event: 'remind-me',
        subject: `notice:${notice.id}`,
        notice_id: notice.id,
        decision: 'scheduled',
        reason: said,
      });
      return said;
    });
  }

  /**
   * Sends the reminders due now, the summaries of silences that ended, the resolves of
   * the PagerDuty incidents of notices whose end passed (`ended`), and the escalations of
   * notice alerts nobody acknowledged in time, with what resolves them (`escalations`);
   * one transaction.
   */
  runReminders(): {
    sent: number;
    dropped: number;
    summaries: number;
    ended: number;
    escalations: number;
  } {
    this.refresh();
    return this.deps.store.transaction(() => {
      const ctx = this.context();
      const reminders = sendDueReminders(ctx, this.compiled.deadlinesByName);
      return {
        ...reminders,
        summaries: summarizeEndedSilences(ctx),
        ended: resolveEndedNotices(ctx, this.compiled),
        escalations: runEscalations(ctx, this.compiled),
      };
    });
  }
}
