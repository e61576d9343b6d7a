/**
 * The database schema, as numbered migrations. `PRAGMA user_version` records the last one
 * applied; each runs in its own transaction, so a crash leaves the database at a version
 * boundary. Add a migration at the end; never edit one that has shipped.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { cycleOrderKey, isDate, NOMINATION_CYCLES } from '../domain/gas-day.js';
import { convertNoticeTexts } from './notice-texts-migration.js';
import { convertSilenceMatchers } from './silence-matchers-migration.js';

type Db = BetterSqlite3.Database;

/** One step of the schema. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Rewrites existing rows after `sql`, in the same transaction, where SQL alone cannot. */
  run?: (db: Db) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'pipelines, notices, capacity, sync state, catalog',
    sql: `
      CREATE TABLE pipelines (
        id                 INTEGER PRIMARY KEY,
        slug               TEXT NOT NULL,
        name               TEXT NOT NULL,
        url                TEXT NOT NULL,
        tsp_name           TEXT NOT NULL,
        tsp_id             TEXT NOT NULL,
        timezone           TEXT,
        service_created_at TEXT,
        service_updated_at TEXT,
        first_seen_at      TEXT NOT NULL,
        last_seen_at       TEXT NOT NULL
      ) STRICT;
      CREATE INDEX pipelines_slug ON pipelines (slug);

      CREATE TABLE notices (
        id                 INTEGER PRIMARY KEY,
        pipeline_id        INTEGER NOT NULL,
        pipeline_name      TEXT NOT NULL,
        pipeline_slug      TEXT NOT NULL,
        pipeline_url       TEXT NOT NULL,
        subject            TEXT NOT NULL,
        identifier         TEXT NOT NULL,
        url                TEXT NOT NULL,
        category           TEXT NOT NULL,
        type               TEXT NOT NULL,
        status             TEXT NOT NULL,
        notice             TEXT NOT NULL,
        html               TEXT NOT NULL,
        mobile             TEXT NOT NULL,
        posted_at          TEXT,
        effective_at       TEXT,
        end_at             TEXT,
        response_at        TEXT,
        service_created_at TEXT,
        service_updated_at TEXT,
        content_hash       TEXT NOT NULL,
        version            INTEGER NOT NULL DEFAULT 1,
        first_seen_at      TEXT NOT NULL,
        last_seen_at       TEXT NOT NULL,
        last_changed_at    TEXT NOT NULL,
        baseline           INTEGER NOT NULL DEFAULT 0 CHECK (baseline IN (0, 1))
      ) STRICT;
      CREATE INDEX notices_posted ON notices (posted_at DESC, id DESC);
      CREATE INDEX notices_pipeline_posted ON notices (pipeline_slug, posted_at DESC);

      CREATE TABLE notice_history (
        notice_id      INTEGER NOT NULL REFERENCES notices (id) ON DELETE CASCADE,
        version        INTEGER NOT NULL,
        changed_at     TEXT NOT NULL,
        changed_fields TEXT NOT NULL,
        previous       TEXT NOT NULL,
        PRIMARY KEY (notice_id, version)
      ) STRICT;

      CREATE TABLE capacity_cycles (
        id                 INTEGER PRIMARY KEY,
        pipeline_id        INTEGER NOT NULL,
        pipeline_slug      TEXT NOT NULL,
        pipeline_name      TEXT NOT NULL,
        identifier         TEXT NOT NULL,
        cycle              TEXT NOT NULL,
        gas_day            TEXT NOT NULL,
        service_created_at TEXT,
        service_updated_at TEXT,
        location_count     INTEGER NOT NULL,
        content_hash       TEXT NOT NULL,
        version            INTEGER NOT NULL DEFAULT 1,
        first_seen_at      TEXT NOT NULL,
        last_seen_at       TEXT NOT NULL
      ) STRICT;
      CREATE INDEX capacity_cycles_key ON capacity_cycles (pipeline_slug, gas_day, cycle);

      CREATE TABLE capacity_locations (
        cycle_id           INTEGER NOT NULL REFERENCES capacity_cycles (id) ON DELETE CASCADE,
        id                 INTEGER NOT NULL,
        location           TEXT NOT NULL,
        identifier         TEXT NOT NULL,
        flow               TEXT NOT NULL,
        qti                TEXT NOT NULL,
        zone               TEXT NOT NULL,
        dc                 REAL,
        opc                REAL,
        tsq                REAL,
        oac                REAL,
        it                 TEXT NOT NULL,
        all_available      TEXT NOT NULL,
        reason             TEXT NOT NULL,
        service_created_at TEXT,
        service_updated_at TEXT,
        PRIMARY KEY (cycle_id, id)
      ) STRICT;

      CREATE TABLE sync_state (
        feed                 TEXT PRIMARY KEY,
        last_attempt_at      TEXT,
        last_success_at      TEXT,
        last_error           TEXT,
        last_error_code      TEXT,
        last_error_at        TEXT,
        consecutive_failures INTEGER NOT NULL DEFAULT 0,
        cursor               TEXT
      ) STRICT;

      CREATE TABLE catalog (
        name        TEXT PRIMARY KEY,
        hash        TEXT NOT NULL,
        description TEXT,
        updated_at  TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 2,
    name: 'alert decisions, outbox, audit, capacity state, reminders',
    sql: `
      CREATE TABLE outbox (
        id              INTEGER PRIMARY KEY,
        key             TEXT NOT NULL UNIQUE,
        rule            TEXT NOT NULL,
        target          TEXT NOT NULL,
        target_json     TEXT NOT NULL,
        payload         TEXT NOT NULL,
        status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'dead')),
        attempts        INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT NOT NULL,
        last_error      TEXT,
        created_at      TEXT NOT NULL,
        sent_at         TEXT
      ) STRICT;
      CREATE INDEX outbox_due ON outbox (status, next_attempt_at);

      CREATE TABLE audit (
        id        INTEGER PRIMARY KEY,
        at        TEXT NOT NULL,
        rule      TEXT NOT NULL,
        event     TEXT NOT NULL,
        subject   TEXT NOT NULL,
        notice_id INTEGER,
        decision  TEXT NOT NULL,
        reason    TEXT NOT NULL
      ) STRICT;
      CREATE INDEX audit_notice ON audit (notice_id, id);

      CREATE TABLE capacity_state (
        rule          TEXT NOT NULL,
        pipeline_slug TEXT NOT NULL,
        location      TEXT NOT NULL,
        state         TEXT NOT NULL CHECK (state IN ('ok', 'firing')),
        episode       INTEGER NOT NULL DEFAULT 0,
        since         TEXT NOT NULL,
        last_alert_at TEXT,
        repeats       INTEGER NOT NULL DEFAULT 0,
        last_cycle    TEXT NOT NULL,
        last_value    REAL,
        PRIMARY KEY (rule, pipeline_slug, location)
      ) STRICT;

      CREATE TABLE reminders (
        rule        TEXT NOT NULL,
        notice_id   INTEGER NOT NULL,
        offset_ms   INTEGER NOT NULL,
        field       TEXT NOT NULL,
        deadline_at TEXT NOT NULL,
        due_at      TEXT NOT NULL,
        status      TEXT NOT NULL CHECK (status IN ('scheduled', 'sent', 'cancelled', 'dropped')),
        reason      TEXT,
        updated_at  TEXT NOT NULL,
        PRIMARY KEY (rule, notice_id, offset_ms)
      ) STRICT;
      CREATE INDEX reminders_due ON reminders (status, due_at);
    `,
  },
  {
    version: 3,
    name: 'delivery: in-flight claims, platform answers, threads; notices by identifier',
    sql: `
      ALTER TABLE outbox ADD COLUMN claimed_at TEXT;
      ALTER TABLE outbox ADD COLUMN detail TEXT;
      CREATE INDEX notices_identifier ON notices (pipeline_slug, identifier);

      CREATE TABLE threads (
        target     TEXT NOT NULL,
        subject    TEXT NOT NULL,
        ref        TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (target, subject)
      ) STRICT;
    `,
  },
  {
    version: 4,
    name: 'pipelines: when the API last said it has no capacity data for one',
    sql: `
      ALTER TABLE pipelines ADD COLUMN capacity_missing_at TEXT;
    `,
  },
  {
    version: 5,
    name: 'outbox: the kind of the last failure, beside its reason',
    sql: `
      ALTER TABLE outbox ADD COLUMN last_error_code TEXT;
    `,
  },
  {
    version: 6,
    name: 'subscriptions and silences made from chat or the command line; acknowledgements',
    sql: `
      -- Ids never come back after a delete (AUTOINCREMENT): people quote them, and the
      -- daemon keeps each subscription's parsed rule by id.
      CREATE TABLE subscriptions (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        rule_json     TEXT NOT NULL,
        target        TEXT NOT NULL,
        source        TEXT NOT NULL CHECK (source IN ('slack', 'discord', 'cli')),
        channel       TEXT,
        created_by    TEXT,
        created_at    TEXT NOT NULL,
        notice_id     INTEGER,
        paused_at     TEXT,
        paused_reason TEXT
      ) STRICT;
      CREATE INDEX subscriptions_channel ON subscriptions (channel);
      -- The words of the stored notices, read for chat's did-you-mean: a covering index
      -- scanned instead of the notices' rows, which hold their whole text.
      CREATE INDEX notices_words ON notices (type, category, status);

      -- Bumped by every change to subscriptions, from any process (the CLI's too), so the
      -- daemon sees that the rules in force must be read again.
      CREATE TABLE revisions (name TEXT PRIMARY KEY, n INTEGER NOT NULL) STRICT;
      INSERT INTO revisions (name, n) VALUES ('subscriptions', 0);
      CREATE TRIGGER subscriptions_insert AFTER INSERT ON subscriptions
        BEGIN UPDATE revisions SET n = n + 1 WHERE name = 'subscriptions'; END;
      CREATE TRIGGER subscriptions_update AFTER UPDATE ON subscriptions
        BEGIN UPDATE revisions SET n = n + 1 WHERE name = 'subscriptions'; END;
      CREATE TRIGGER subscriptions_delete AFTER DELETE ON subscriptions
        BEGIN UPDATE revisions SET n = n + 1 WHERE name = 'subscriptions'; END;

      CREATE TABLE silences (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        matchers_json TEXT NOT NULL,
        starts_at     TEXT NOT NULL,
        ends_at       TEXT,
        created_by    TEXT NOT NULL,
        comment       TEXT,
        created_at    TEXT NOT NULL,
        lifted_at     TEXT,
        lifted_by     TEXT,
        summarized_at TEXT
      ) STRICT;

      CREATE TABLE held (
        id          INTEGER PRIMARY KEY,
        key         TEXT NOT NULL UNIQUE,
        silence_id  INTEGER NOT NULL,
        rule        TEXT NOT NULL,
        target      TEXT NOT NULL,
        target_json TEXT NOT NULL,
        alert_json  TEXT NOT NULL,
        at          TEXT NOT NULL
      ) STRICT;
      CREATE INDEX held_silence ON held (silence_id, target);

      CREATE TABLE acks (
        platform TEXT NOT NULL,
        channel  TEXT NOT NULL,
        message  TEXT NOT NULL,
        by       TEXT NOT NULL,
        at       TEXT NOT NULL,
        PRIMARY KEY (platform, channel, message)
      ) STRICT;
    `,
  },
  {
    version: 7,
    name: 'instance keys; Discord interactions already answered',
    sql: `
      -- Keys this instance made for itself (the key of unsubscribe links), kept so that
      -- links stay valid across restarts.
      CREATE TABLE keys (
        name       TEXT PRIMARY KEY,
        value      TEXT NOT NULL,
        created_at TEXT NOT NULL
      ) STRICT;

      -- Ids of the Discord interactions answered lately: a request replayed with a
      -- valid signature is refused instead of acted on twice, across restarts too.
      CREATE TABLE interactions (
        id TEXT PRIMARY KEY,
        at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX interactions_at ON interactions (at);
    `,
  },
  {
    version: 8,
    name: 'notice texts in one compressed body; outbox rows name the notice version; retention',
    sql: `
      -- The three text forms, compressed together (notice-body.ts); the old columns stay,
      -- empty. A pruned notice has no body and says when it was pruned.
      ALTER TABLE notices ADD COLUMN body BLOB;
      ALTER TABLE notices ADD COLUMN pruned_at TEXT;
      -- The previous texts of a version whose texts changed, compressed the same way.
      ALTER TABLE notice_history ADD COLUMN body BLOB;
      -- The notice version an alert is about: its payload no longer copies the notice,
      -- which is read back from notices and notice_history.
      ALTER TABLE outbox ADD COLUMN notice_id INTEGER;
      ALTER TABLE outbox ADD COLUMN notice_version INTEGER;
      CREATE INDEX outbox_notice ON outbox (notice_id) WHERE notice_id IS NOT NULL;
    `,
    run: convertNoticeTexts,
  },
  {
    version: 9,
    name: 'fewer indexes of the notices: none by identifier or pipeline, their words apart',
    sql: `
      -- Every stored notice paid for each of these indexes in a leaf of its own (the
      -- values come in no order): most of the writes of a page of new notices.
      -- The one reader by identifier, finding the reminders a superseding notice cancels,
      -- starts from the scheduled reminders instead.
      DROP INDEX IF EXISTS notices_identifier;
      -- The one reader by pipeline, a new subscription's matches of the last 24 h, reads
      -- that day's notices by notices_posted and leaves the other pipelines'.
      DROP INDEX IF EXISTS notices_pipeline_posted;
      -- The words of types, categories and statuses, which chat commands are checked
      -- against, in a table of their own: a few dozen rows instead of an index of every
      -- notice.
      CREATE TABLE notice_words (
        field TEXT NOT NULL CHECK (field IN ('type', 'category', 'status')),
        word  TEXT NOT NULL,
        PRIMARY KEY (field, word)
      ) STRICT, WITHOUT ROWID;
      INSERT OR IGNORE INTO notice_words SELECT 'type', lower(type) FROM notices WHERE type <> '';
      INSERT OR IGNORE INTO notice_words
        SELECT 'category', lower(category) FROM notices WHERE category <> '';
      INSERT OR IGNORE INTO notice_words SELECT 'status', lower(status) FROM notices WHERE status <> '';
      DROP INDEX IF EXISTS notices_words;
    `,
  },
  {
    version: 10,
    name: 'deliveries unique by subject, rule and target, in that order',
    sql: `
      -- The outbox kept each delivery unique by its key, rule|subject|target, in an index
      -- ordered by rule: the deliveries of one page of notices, a rule's each, landed in
      -- leaves all over it, every one written again at the page's commit. By subject
      -- first, one notice's deliveries sit together. The key itself, behind webhook
      -- delivery ids, email Message-IDs and Discord nonces, is the same: a row's key is
      -- put together from its columns when it is read (outbox.ts).
      -- A row whose key is not its rule, subject and target joined by '|' (none is
      -- written so, but a database may have been edited) keeps its whole key as subject.
      -- The index by notice went: nothing read by it.
      CREATE TABLE outbox_next (
        id              INTEGER PRIMARY KEY,
        subject         TEXT NOT NULL,
        rule            TEXT NOT NULL,
        target          TEXT NOT NULL,
        target_json     TEXT NOT NULL,
        payload         TEXT NOT NULL,
        status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'dead')),
        attempts        INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT NOT NULL,
        last_error      TEXT,
        last_error_code TEXT,
        created_at      TEXT NOT NULL,
        sent_at         TEXT,
        claimed_at      TEXT,
        detail          TEXT,
        notice_id       INTEGER,
        notice_version  INTEGER,
        UNIQUE (subject, rule, target)
      ) STRICT;
      INSERT INTO outbox_next
        SELECT id,
          CASE WHEN length(key) >= length(rule) + length(target) + 2
                AND substr(key, 1, length(rule) + 1) = rule || '|'
                AND substr(key, -(length(target) + 1)) = '|' || target
            THEN substr(key, length(rule) + 2, length(key) - length(rule) - length(target) - 2)
            ELSE key
          END,
          rule, target, target_json, payload, status, attempts, next_attempt_at, last_error,
          last_error_code, created_at, sent_at, claimed_at, detail, notice_id, notice_version
        FROM outbox ORDER BY id;
      DROP TABLE outbox;
      ALTER TABLE outbox_next RENAME TO outbox;
      CREATE INDEX outbox_due ON outbox (status, next_attempt_at);
    `,
  },
  {
    version: 11,
    name: 'capacity state remembers its last cycle by when it was posted',
    // The state of a capacity rule at a location kept its last cycle as `gas_day#order`,
    // which put tomorrow's timely cycle after today's ID2 and ID3, posted later: those
    // were ignored every evening. It is now the cycle's posting instant (cycleOrderKey).
    sql: '',
    run: (db) => {
      const rows = db
        .prepare<[], { rowid: number; last_cycle: string }>(
          'SELECT rowid, last_cycle FROM capacity_state',
        )
        .all();
      const update = db.prepare('UPDATE capacity_state SET last_cycle = ? WHERE rowid = ?');
      for (const { rowid, last_cycle } of rows) {
        const m = /^(\d{4}-\d{2}-\d{2})#(\d+)$/.exec(last_cycle);
        if (!m || !isDate(m[1])) continue;
        const cycle = NOMINATION_CYCLES[Number(m[2]) - 1] ?? '';
        update.run(cycleOrderKey(m[1], cycle), rowid);
      }
    },
  },
  {
    version: 12,
    name: 'outages: what pipewatch cannot see or reach, one row while it lasts',
    sql: `
      -- A feed gone stale or a delivery target gone dead, from when pipewatch found it
      -- until its first success after: its operations alerts are sent once each, however
      -- many times the daemon restarts meanwhile. 'feed:<name>' or 'target:<target key>'.
      CREATE TABLE outages (
        subject    TEXT PRIMARY KEY,
        -- Its last success before the outage; null: none was known.
        since      TEXT,
        started_at TEXT NOT NULL,
        reason     TEXT NOT NULL
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 13,
    name: 'subscriptions and silences say which chat workspace they were made in',
    sql: `
      -- The Slack workspace or Discord server a subscription or silence was made in
      -- ('slack:T0GAS', 'discord:<guild id>', 'discord:-' for a Discord direct message),
      -- for the limits per workspace (chat/limits.ts). Null from the command line, and
      -- for rows made before: those count toward no workspace.
      ALTER TABLE subscriptions ADD COLUMN workspace TEXT;
      ALTER TABLE silences ADD COLUMN workspace TEXT;
    `,
  },
  {
    version: 14,
    name: 'reminders go with their subscription; what retention keeps of a removed notice',
    sql: `
      -- A subscription's reminders and capacity state go when it is removed, whichever
      -- process removes it: its name ('sub-' and its id, rules/subscription.ts) never
      -- comes back (AUTOINCREMENT), so nothing of it is needed any more.
      CREATE TRIGGER subscriptions_forget AFTER DELETE ON subscriptions BEGIN
        DELETE FROM reminders WHERE rule = 'sub-' || old.id;
        DELETE FROM capacity_state WHERE rule = 'sub-' || old.id;
      END;
      -- Those left behind by the subscriptions removed before.
      DELETE FROM reminders WHERE rule GLOB 'sub-[0-9]*' AND rule NOT GLOB 'sub-*[^0-9]*'
        AND CAST(substr(rule, 5) AS INTEGER) NOT IN (SELECT id FROM subscriptions);
      DELETE FROM capacity_state WHERE rule GLOB 'sub-[0-9]*' AND rule NOT GLOB 'sub-*[^0-9]*'
        AND CAST(substr(rule, 5) AS INTEGER) NOT IN (SELECT id FROM subscriptions);

      -- What retention keeps of a notice whose row it removed (store/retention.ts): its
      -- content hash (16 bytes) and version, so that the notice seen again is not new.
      CREATE TABLE notice_tombstones (
        id           INTEGER PRIMARY KEY,
        content_hash BLOB NOT NULL,
        version      INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 15,
    name: 'silences count their changes, as subscriptions do',
    sql: `
      -- The alert engine keeps the silences sorted by what they match between decisions,
      -- and reads them again only when this count moved: a change by any process (a chat
      -- mute, \`pipewatch silence add\`, a lift, a summary decided) moves it.
      INSERT INTO revisions (name, n) VALUES ('silences', 0);
      CREATE TRIGGER silences_insert AFTER INSERT ON silences
        BEGIN UPDATE revisions SET n = n + 1 WHERE name = 'silences'; END;
      CREATE TRIGGER silences_update AFTER UPDATE ON silences
        BEGIN UPDATE revisions SET n = n + 1 WHERE name = 'silences'; END;
      CREATE TRIGGER silences_delete AFTER DELETE ON silences
        BEGIN UPDATE revisions SET n = n + 1 WHERE name = 'silences'; END;
    `,
  },
  {
    version: 16,
    name: 'reminders carry their notice by pipeline and identifier while scheduled',
    sql: `
      -- A notice that supersedes another cancels its scheduled reminders. They were found
      -- by reading every scheduled reminder and its notice, which grew with the reminders
      -- kept: thousands for one busy deadline. Each reminder now carries its notice's
      -- pipeline and identifier ('' while its notice is not stored), in an index of the
      -- scheduled ones only; the triggers keep a scheduled reminder's the notice's own.
      ALTER TABLE reminders ADD COLUMN pipeline_slug TEXT NOT NULL DEFAULT '';
      ALTER TABLE reminders ADD COLUMN identifier TEXT NOT NULL DEFAULT '';
      UPDATE reminders SET pipeline_slug = n.pipeline_slug, identifier = n.identifier
        FROM notices AS n WHERE n.id = reminders.notice_id;
      CREATE INDEX reminders_scheduled_identifier ON reminders (pipeline_slug, identifier)
        WHERE status = 'scheduled';
      CREATE TRIGGER notices_insert_reminders AFTER INSERT ON notices
        BEGIN UPDATE reminders SET pipeline_slug = new.pipeline_slug, identifier = new.identifier
          WHERE status = 'scheduled' AND pipeline_slug = '' AND identifier = ''
            AND notice_id = new.id; END;
      CREATE TRIGGER notices_update_reminders AFTER UPDATE OF pipeline_slug, identifier ON notices
        WHEN old.pipeline_slug IS NOT new.pipeline_slug OR old.identifier IS NOT new.identifier
        BEGIN UPDATE reminders SET pipeline_slug = new.pipeline_slug, identifier = new.identifier
          WHERE status = 'scheduled' AND pipeline_slug = old.pipeline_slug
            AND identifier = old.identifier AND notice_id = new.id; END;
    `,
  },
  {
    version: 17,
    name: 'subscriptions and silences found by whom and where, without a scan',
    sql: `
      -- Each chat command reads a person's reminders (by target) and counts what a person
      -- or a workspace holds against the chat limits (chat/limits.ts): with thousands of
      -- subscriptions and silences, a scan of each table per command.
      CREATE INDEX subscriptions_target ON subscriptions (target);
      CREATE INDEX subscriptions_workspace ON subscriptions (workspace) WHERE workspace IS NOT NULL;
      CREATE INDEX silences_created_by ON silences (created_by);
      CREATE INDEX silences_workspace ON silences (workspace) WHERE workspace IS NOT NULL;
    `,
  },
  {
    version: 18,
    name: 'a stored notice gives its waiting reminders its identifier without a trigger',
    sql: `
      -- The trigger cost each stored notice far more than its lookup, which finds a
      -- reminder for nearly none: its UPDATE changes the columns of the index it searches,
      -- so SQLite gathered the rows in a temporary b-tree of their own before writing them,
      -- a new one each time, found or not; and any trigger on the notices makes each
      -- INSERT of one keep a statement journal, a copy of each page it changes (spilled to
      -- a temporary file in a long transaction). Together some 45% more of SQLite's work
      -- for each notice a sync stores, and half the speed of 100,000 notices inserted in
      -- one transaction. The store now gives a scheduled reminder stored before its notice
      -- the notice's pipeline and identifier when it inserts the notice, found by a read
      -- first (ReminderStore.noticeStored). Those the trigger would have given have them
      -- already; any whose notice is stored get them here.
      DROP TRIGGER IF EXISTS notices_insert_reminders;
      UPDATE reminders SET pipeline_slug = n.pipeline_slug, identifier = n.identifier
        FROM notices AS n
        WHERE reminders.status = 'scheduled' AND reminders.pipeline_slug = ''
          AND reminders.identifier = '' AND n.id = reminders.notice_id;
    `,
  },
  {
    version: 19,
    name: 'silence matchers as written, with their operators',
    sql: `
      -- A silence matched by lists of equal values (pipelines, targets, rules, any of a
      -- list's values). It now keeps each matcher as written, with its operator (=, !=,
      -- =~, !~) and on more keys; each value of a list becomes an = matcher of its key,
      -- and = matchers of one key are alternatives, so each silence matches what it did.
    `,
    run: convertSilenceMatchers,
  },
  {
    version: 20,
    name: 'escalations of notice alerts nobody acknowledged',
    sql: `
      -- One row per escalating rule and notice, from the rule's first alert of it: the
      -- alerts feed escalates it once it has gone unacknowledged for the rule's wait,
      -- and watches an escalated one for a late acknowledgement or its notice's end,
      -- which resolve what the escalation opened.
      CREATE TABLE escalations (
        rule       TEXT NOT NULL,
        notice_id  INTEGER NOT NULL,
        alerted_at TEXT NOT NULL,
        status     TEXT NOT NULL
          CHECK (status IN ('pending', 'escalated', 'acknowledged', 'resolved', 'dropped')),
        decided_at TEXT,
        PRIMARY KEY (rule, notice_id)
      ) STRICT;
      CREATE INDEX escalations_open ON escalations (status, alerted_at)
        WHERE status IN ('pending', 'escalated');
    `,
  },
  {
    version: 21,
    name: 'outbox claims name who made them, and under which term',
    sql: `
      -- On a shared PostgreSQL database, the leader records each claim with its own id
      -- and its lease's term, so that a new leader releases only a former leader's claims.
      -- One process has a SQLite file to itself: its claims leave both NULL, and are
      -- cleared with claimed_at.
      ALTER TABLE outbox ADD COLUMN claimed_by TEXT;
      ALTER TABLE outbox ADD COLUMN claimed_term INTEGER;
    `,
  },
];
