/**
 * pipewatch's configuration: the environment (and `.env`) parsed once at start-up into a
 * typed object. A bad value stops start-up with one line per bad variable naming it, its
 * problem and an example of a good value; a secret's value is never repeated.
 */
import { resolve } from 'node:path';
import type { Target } from '../domain/targets.js';
import type { LogLevel } from '../lib/logger.js';
import type { EnvironmentSources } from './env-file.js';
import { unknownVariableWarnings } from './unknown-variables.js';
import { VARIABLES, type VariableValue } from './variables.js';

export {
  type EnvironmentSources,
  environmentWithDotEnv,
  type ReadEnvironment,
  readEnvironment,
} from './env-file.js';
export { OWN_PREFIXES } from './unknown-variables.js';
export { VARIABLES, type Variable } from './variables.js';

/** The typed configuration. */
export interface Config {
  api: {
    /** `{base_url}`, or null when unset (`run` then refuses to start; `api` asks the simulator). */
    url: string | null;
    user: string | undefined;
    key: string | undefined;
    ratePerSecond: number;
    concurrency: number;
    timeoutMs: number;
    /** A response body larger than this fails its request. */
    maxBodyBytes: number;
  };
  dataDir: string;
  /** The PostgreSQL store's URL; undefined: SQLite in `dataDir`. */
  databaseUrl: string | undefined;
  /** How long the leader's lease lasts unrenewed (PostgreSQL only). */
  leaderLeaseMs: number;
  rulesDir: string;
  noticesIntervalMs: number;
  capacityIntervalMs: number;
  maxAlertAgeMs: number;
  /** Pipelines whose notices alert; empty: all. */
  pipelines: string[];
  /** Pipelines whose capacity is fetched. */
  capacityPipelines: string[];
  baselinePages: number;
  baselineAgeMs: number;
  /** How long stored history is kept (`retention.ts`); 0: for ever. */
  retentionMs: number;
  httpPort: number;
  /** Address the HTTP port listens on; loopback unless set. */
  httpHost: string;
  /** Bearer token of the full `/status`; unset: no one gets it over HTTP. */
  statusToken: string | undefined;
  webhookSecret: string | undefined;
  /** Where operational alerts (schema drift) go; undefined: only logged. */
  opsTarget: Target | undefined;
  /** The dead man's switch pinged after each notices poll; undefined: none. */
  heartbeatUrl: string | undefined;
  /** Chat users who alone may change channels' subscriptions and silences; empty: no one singled out. */
  chatAdmins: string[];
  /** How much chat may store: per channel, per workspace, per person (`chat/limits.ts`). */
  chatLimits: {
    subscriptionsPerChannel: number;
    subscriptionsPerWorkspace: number;
    remindersPerUser: number;
    remindersPerWorkspace: number;
    silencesPerUser: number;
    silencesPerWorkspace: number;
  };
  /** The https URL people reach the HTTP port at; set: emails carry unsubscribe links. */
  publicUrl: string | undefined;
  /** Key of unsubscribe links; unset: one made and kept in the database. */
  secretKey: string | undefined;
  slack: {
    botToken: string | undefined;
    signingSecret: string | undefined;
    appToken: string | undefined;
    apiUrl: string | undefined;
  };
  discord: {
    botToken: string | undefined;
    applicationId: string | undefined;
    publicKey: string | undefined;
    apiUrl: string | undefined;
  };
  /** PagerDuty's integration keys are in the rules; only where its Events API is. */
  pagerduty: {
    apiUrl: string | undefined;
  };
  email: {
    smtpUrl: string | undefined;
    from: string | undefined;
    /** Messages per second. */
    ratePerSecond: number;
    /** An `smtp://` login may go without STARTTLS (a local relay). */
    allowPlaintext: boolean;
  };
  delivery: {
    /** Alerts for one target due within this many milliseconds of each other form one digest. */
    digestWindowMs: number;
    /** A delivery failing temporarily for longer than this goes dead. */
    maxAgeMs: number;
    /** Total time of one request to a platform, connect to complete answer. */
    timeoutMs: number;
    /** A target whose oldest waiting delivery fell due longer ago than this is stuck. */
    stuckAfterMs: number;
  };
  logLevel: LogLevel;
  /**
   * What was set but will not be used: a name under a pipewatch prefix that is no
   * pipewatch variable. One line each, for the log.
   */
  warnings: string[];
}

/**
 * Start-up cannot go on: each line names a variable and what is wrong with it; the
 * warnings about unknown variables follow, since a misspelt name is often the cause.
 */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  constructor(readonly lines: string[]) {
    super(lines.join('\n'));
    this.name = 'ConfigError';
  }
}

function show(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
}

/**
 * `PIPEWATCH_API_URL` with the API's own path on it: the client appends `/api/v1`, so
 * every request would go to `/api/v1/api/v1/…` and fail as not found. Returns the line
 * saying so, with the value to set instead.
 */
function apiUrlProblem(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const suffix = /\/api\/v1\/?(?=[?#]|$)/i;
  if (!suffix.test(url)) return undefined;
  const name = VARIABLES.apiUrl.name;
  return `${name} must not end in /api/v1: the client appends /api/v1 itself; got ${show(url)} (set ${name}=${url.replace(suffix, '')} instead)`;
}

/** Query parameters of an SMTP URL (read by nodemailer) that let a login go in clear text. */
const PLAINTEXT_PARAMETERS: ReadonlyArray<[string, string]> = [
  ['ignoreTLS', 'true'],
  ['requireTLS', 'false'],
  ['opportunisticTLS', 'true'],
];

/**
 * An `smtp://` URL with a login always requires STARTTLS, unless SMTP_ALLOW_PLAINTEXT is
 * true. A URL whose query turns that off (`?ignoreTLS=true`, `requireTLS=false`,
 * `opportunisticTLS=true`, which nodemailer reads and would obey) is a contradiction
 * caught at start-up rather than a password sent in clear text later.
 */
function smtpPlaintextProblem(smtpUrl: string | undefined, allowed: boolean): string | undefined {
  if (smtpUrl === undefined || allowed) return undefined;
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'smtp:' || (url.username === '' && url.password === '')) return undefined;
  const found = PLAINTEXT_PARAMETERS.find(
    ([key, value]) => url.searchParams.get(key)?.toLowerCase() === value,
  );
  if (found === undefined) return undefined;
  const setting = `${found[0]}=${found[1]}`;
  return `${VARIABLES.smtpUrl.name} turns STARTTLS off (${setting}) but logs in, so the password would cross the network in clear text; remove ${setting}, or set ${VARIABLES.smtpAllowPlaintext.name}=true for a local relay`;
}

/**
 * Parses the configuration from an environment; throws `ConfigError` listing every bad
 * variable. `sources` says where each name was set, for the warnings about unknown ones.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
  sources?: EnvironmentSources,
): Config {
  const errors: string[] = [];
  const warnings = unknownVariableWarnings(env, sources);
  const read = <K extends keyof typeof VARIABLES>(key: K): VariableValue<K> => {
    const spec = VARIABLES[key];
    const raw = env[spec.name];
    const result = spec.schema.safeParse(raw);
    if (result.success) return result.data as VariableValue<K>;
    const problem = result.error.issues[0]?.message ?? 'is invalid';
    const value = !spec.secret
      ? show(raw ?? '')
      : spec.shown
        ? show(spec.shown(raw ?? ''))
        : '(value hidden)';
    const verb = /^(is|must)\b/.test(problem) ? problem : `is invalid: ${problem}`;
    errors.push(`${spec.name} ${verb}; got ${value} (example: ${spec.name}=${spec.example})`);
    return undefined as VariableValue<K>;
  };

  const apiUser = read('apiUser');
  const apiKey = read('apiKey');
  const config: Config = {
    api: {
      url: read('apiUrl') ?? null,
      user: apiUser,
      key: apiKey,
      ratePerSecond: read('apiRate'),
      concurrency: read('apiConcurrency'),
      timeoutMs: read('apiTimeout'),
      maxBodyBytes: read('apiMaxBody'),
    },
    dataDir: resolve(cwd, read('dataDir') ?? '.'),
    databaseUrl: read('databaseUrl'),
    leaderLeaseMs: read('leaderLease'),
    rulesDir: resolve(cwd, read('rulesDir') ?? '.'),
    noticesIntervalMs: read('noticesInterval'),
    capacityIntervalMs: read('capacityInterval'),
    maxAlertAgeMs: read('maxAlertAge'),
    pipelines: read('pipelines') ?? [],
    capacityPipelines: read('capacityPipelines') ?? [],
    baselinePages: read('baselinePages'),
    baselineAgeMs: read('baselineAge'),
    retentionMs: read('retention'),
    httpPort: read('httpPort'),
    httpHost: read('httpHost'),
    statusToken: read('statusToken'),
    webhookSecret: read('webhookSecret'),
    opsTarget: read('opsTarget'),
    heartbeatUrl: read('heartbeatUrl'),
    chatAdmins: read('chatAdmins') ?? [],
    chatLimits: {
      subscriptionsPerChannel: read('chatSubscriptionsPerChannel'),
      subscriptionsPerWorkspace: read('chatSubscriptionsPerWorkspace'),
      remindersPerUser: read('chatRemindersPerUser'),
      remindersPerWorkspace: read('chatRemindersPerWorkspace'),
      silencesPerUser: read('chatSilencesPerUser'),
      silencesPerWorkspace: read('chatSilencesPerWorkspace'),
    },
    publicUrl: read('publicUrl'),
    secretKey: read('secretKey'),
    slack: {
      botToken: read('slackBotToken'),
      signingSecret: read('slackSigningSecret'),
      appToken: read('slackAppToken'),
      apiUrl: read('slackApiUrl'),
    },
    discord: {
      botToken: read('discordBotToken'),
      applicationId: read('discordApplicationId'),
      publicKey: read('discordPublicKey'),
      apiUrl: read('discordApiUrl'),
    },
    pagerduty: {
      apiUrl: read('pagerdutyApiUrl'),
    },
    email: {
      smtpUrl: read('smtpUrl'),
      from: read('emailFrom'),
      ratePerSecond: read('emailRate'),
      allowPlaintext: read('smtpAllowPlaintext'),
    },
    delivery: {
      digestWindowMs: read('digestWindow'),
      maxAgeMs: read('deliveryMaxAge'),
      timeoutMs: read('deliveryTimeout'),
      stuckAfterMs: read('deliveryStuckAfter'),
    },
    logLevel: read('logLevel'),
    warnings,
  };

  const urlProblem = apiUrlProblem(config.api.url ?? undefined);
  if (urlProblem !== undefined) errors.push(urlProblem);
  if ((apiUser === undefined) !== (apiKey === undefined)) {
    const missing = apiUser === undefined ? VARIABLES.apiUser : VARIABLES.apiKey;
    errors.push(
      `${missing.name} is missing: ${VARIABLES.apiUser.name} and ${VARIABLES.apiKey.name} go together (example: ${missing.name}=${missing.example})`,
    );
  }
  if (config.email.smtpUrl !== undefined && config.email.from === undefined) {
    errors.push(
      `${VARIABLES.emailFrom.name} is missing: email needs a sender when ${VARIABLES.smtpUrl.name} is set (example: ${VARIABLES.emailFrom.name}=${VARIABLES.emailFrom.example})`,
    );
  }
  const plaintext = smtpPlaintextProblem(config.email.smtpUrl, config.email.allowPlaintext);
  if (plaintext !== undefined) errors.push(plaintext);
  if (errors.length > 0) throw new ConfigError([...errors, ...warnings]);
  return config;
}

/** Every secret value set, for scrubbing: tokens, keys, and the SMTP password. */
export function secretValues(config: Config): string[] {
  const passwordOf = (url: string | undefined) => {
    if (!url) return undefined;
    try {
      return decodeURIComponent(new URL(url).password) || undefined;
    } catch {
      return undefined;
    }
  };
  return [
    config.api.key,
    config.webhookSecret,
    config.slack.botToken,
    config.slack.signingSecret,
    config.slack.appToken,
    config.discord.botToken,
    config.statusToken,
    config.secretKey,
    config.heartbeatUrl,
    passwordOf(config.email.smtpUrl),
    passwordOf(config.databaseUrl),
    config.opsTarget?.kind === 'pagerduty' ? config.opsTarget.routingKey : undefined,
  ].filter((v): v is string => v !== undefined && v !== '');
}
