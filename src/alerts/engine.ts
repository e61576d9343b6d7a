/**
 * The alert stage: turns ingest events into decisions and outbox rows, inside the
 * transaction that stored the events, with the rules in force. Rules can be replaced
 * while running (hot reload); each event is judged by the rules in force when it arrives.
 */
import type { IngestHooks } from '../ingest/events.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Rule, Target } from '../rules/types.js';
import type { Store } from '../store/index.js';
import { toUtcIso } from '../upstream/schemas.js';
import { decideCapacity } from './capacity-decisions.js';
import type { DecisionContext } from './context.js';
import { decideNotices } from './notice-decisions.js';
import { decideDrift } from './operations.js';
import { sendDueReminders } from './reminders.js';
import { type CompiledRules, compileRules } from './rules.js';

export interface AlertEngineDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  maxAlertAgeMs: number;
  /** Where schema drift is reported; undefined: it is only logged. */
  opsTarget?: Target | undefined;
}

export class AlertEngine {
  private compiled: CompiledRules;

  constructor(
    private readonly deps: AlertEngineDeps,
    rules: readonly Rule[],
  ) {
    this.compiled = compileRules(rules);
  }

  /** The rules in force. */
  get rules(): readonly Rule[] {
    return this.compiled.all;
  }

  /** Replaces the rules in force (hot reload). */
  setRules(rules: readonly Rule[]): void {
    this.compiled = compileRules(rules);
  }

  private context(): DecisionContext {
    return { store: this.deps.store, now: toUtcIso(this.deps.clock.now()) };
  }

  /** The ingest hooks that decide; they run inside ingest's transactions. */
  hooks(extra: IngestHooks = {}): IngestHooks {
    return {
      notices: (events) => {
        decideNotices(this.context(), this.compiled, events, this.deps.maxAlertAgeMs);
        extra.notices?.(events);
      },
      capacity: (event) => {
        decideCapacity(this.context(), this.compiled, event);
        extra.capacity?.(event);
      },
      schemaDrift: (event) => {
        if (this.deps.opsTarget) decideDrift(this.context(), this.deps.opsTarget, event);
        extra.schemaDrift?.(event);
      },
    };
  }

  /** Sends the reminders due now; one transaction. */
  runReminders(): { sent: number; dropped: number } {
    return this.deps.store.transaction(() =>
      sendDueReminders(this.context(), this.compiled.deadlinesByName),
    );
  }
}
