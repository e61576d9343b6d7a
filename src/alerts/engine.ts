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
import type { SubscriptionRow } from '../store/subscriptions.js';
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
    // The rule files' rules now; the subscriptions join at the first `refresh`, which
    // every decision begins with (the revision read is never -1).
    this.compiled = compileRules(rules);
    this.compiledFiles = rules;
    this.locations.setRules(this.compiled.all);
  }

  /** The rules in force: the rule files', then the subscriptions' that are not paused. */
  async rules(): Promise<readonly Rule[]> {
    await this.refresh();
    return this.compiled.all;
  }

  /** Replaces the rule files' rules (hot reload); subscriptions stay. */
  async setRules(rules: readonly Rule[]): Promise<void> {
    this.fileRules = rules;
    await this.compile();
  }

  /** Puts the subscriptions as stored now in force (one was made, removed, paused or resumed). */
  async reloadSubscriptions(): Promise<void> {
    await this.compile();
  }

  /** The subscriptions' revision the compiled rules were read at; -1: not read yet. */
  private revision = -1;

  /** Reads the subscriptions again when any process changed them since they were compiled. */
  private async refresh(): Promise<void> {
    if ((await this.deps.store.subscriptions.revision()) !== this.revision) await this.compile();
  }

  /** The subscriptions in force when the rules were compiled, by id, and the rule files then. */
  private compiledIds: readonly number[] = [];
  private compiledFiles: readonly Rule[] | undefined;

  /** How many compilations began, and the latest that put its rules in force. */
  private begun = 0;
  private applied = 0;

  /**
   * Reads the subscriptions, then puts the rules in force: the reads are awaited, what
   * follows them is not, so two compilations (a decision's and a chat command's) never
   * interleave their changes, and one that began earlier never replaces the rules of one
   * that began later. It holds no lock: one called inside a transaction must never wait
   * for one outside it, which waits for that transaction to end.
   */
  private async compile(): Promise<void> {
    const seq = ++this.begun;
    const { subscriptions } = this.deps.store;
    // The revision first: a change between the two reads is compiled again at the next refresh.
    const revision = await subscriptions.revision();
    // Only the subscriptions not parsed before are read in full.
    const ids = await subscriptions.idsInForce();
    const rows: SubscriptionRow[] = [];
    for (const id of ids) {
      if (this.parsed.has(id)) continue;
      const row = await subscriptions.get(id);
      if (row) rows.push(row);
    }
    if (seq < this.applied) return;
    this.applied = seq;
    this.revision = revision;
    const kept = new Set(ids);
    for (const id of this.parsed.keys()) if (!kept.has(id)) this.parsed.delete(id);
    subscriptionRules(
      rows.filter((row) => !this.parsed.has(row.id)),
      this.parsed,
    );
    // Subscriptions only added since (newer ids, the usual change) join the rules in force
    // as they are; any other change compiles them all again.
    const before = this.compiledIds;
    const grown =
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
    this.compiled = compiled;
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

  /**
   * The ingest hooks that decide; they run inside ingest's transactions. Each call reads
   * the subscriptions' revision and makes its own context; those of one transaction
   * (`transaction()`) read them once for all its calls.
   */
  hooks(extra: IngestHooks = {}): IngestHooks {
    return {
      ...this.decidingHooks(async () => {
        await this.refresh();
        return this.context();
      }, extra),
      transaction: () => {
        let opened: Promise<DecisionContext> | undefined;
        return this.decidingHooks(() => {
          opened ??= this.refresh().then(() => this.context());
          return opened;
        }, extra.transaction?.() ?? extra);
      },
    };
  }

  /** Hooks that decide in the context `contextOf` gives, after which `extra`'s run. */
  private decidingHooks(
    contextOf: () => Promise<DecisionContext>,
    extra: IngestHooks,
  ): IngestHooks {
    return {
      notices: async (events) => {
        const ctx = await contextOf();
        await decideNotices(ctx, this.compiled, events, this.deps.maxAlertAgeMs);
        await extra.notices?.(events);
      },
      baseline: async (notices) => {
        await decideBaseline(await contextOf(), this.compiled, notices);
        await extra.baseline?.(notices);
      },
      capacity: async (event) => {
        const ctx = await contextOf();
        await decideCapacity(ctx, this.compiled, event);
        await this.locations.capacity(ctx, event);
        await extra.capacity?.(event);
      },
      schemaDrift: async (event) => {
        if (this.deps.opsTarget) await decideDrift(await contextOf(), this.deps.opsTarget, event);
        await extra.schemaDrift?.(event);
      },
      pipelines: async (event) => {
        await this.reportUnknownPipelines(event.slugs);
        this.locations.pipelinesChanged();
        await extra.pipelines?.(event);
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
  async checkPipelines(): Promise<Array<UnknownPipeline | UnknownSettingPipeline>> {
    await this.refresh();
    const tracked = (await this.deps.store.pipelines.all()).map((p) => p.slug);
    return this.deps.store.transaction(() => this.reportUnknownPipelines(tracked));
  }

  private async reportUnknownPipelines(
    tracked: readonly string[],
  ): Promise<Array<UnknownPipeline | UnknownSettingPipeline>> {
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
      if (this.deps.opsTarget) await decideUnknownPipeline(this.context(), this.deps.opsTarget, u);
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
  async checkLocations(): Promise<UnknownLocation[]> {
    await this.refresh();
    return this.deps.store.transaction(() => this.locations.review(this.context()));
  }

  /**
   * Plans the reminders of a one-notice reminder subscription ("Remind me") for its notice
   * now, rather than at the notice's next change; returns what was planned, as the audit
   * says it. Call after the subscription is stored.
   */
  async remindNow(subscription: number): Promise<string> {
    await this.reloadSubscriptions();
    const rule = this.compiled.deadlinesByName.get(subscriptionName(subscription));
    const noticeId = rule?.origin?.noticeId;
    const notice = noticeId === undefined ? undefined : await this.deps.store.notices.get(noticeId);
    if (!rule || !notice) return 'no reminders: the subscription or its notice is not stored';
    return this.deps.store.transaction(async () => {
      const ctx = this.context();
      const said = await scheduleReminders(ctx, rule, notice);
      await ctx.store.audit.record({
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
  async runReminders(): Promise<{
    sent: number;
    dropped: number;
    summaries: number;
    ended: number;
    escalations: number;
  }> {
    await this.refresh();
    return this.deps.store.transaction(async () => {
      const ctx = this.context();
      const reminders = await sendDueReminders(ctx, this.compiled.deadlinesByName);
      return {
        ...reminders,
        summaries: await summarizeEndedSilences(ctx),
        ended: await resolveEndedNotices(ctx, this.compiled),
        escalations: await runEscalations(ctx, this.compiled),
      };
    });
  }
}
