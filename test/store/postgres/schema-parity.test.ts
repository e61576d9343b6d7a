/**
 * The PostgreSQL schema is the SQLite schema: a freshly migrated database of each has the
 * same tables, and in each table the same columns (of matching types, null or not, with
 * the same defaults), the same primary, unique and foreign keys, as many checks, the same
 * indexes and triggers.
 * A migration added to one list and not to the other fails here. Tables only a shared
 * database needs (`POSTGRES_ONLY_TABLES`) are left out.
 */
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/store/database.js';
import { MIGRATIONS } from '../../../src/store/migrations.js';
import { connectPostgres } from '../../../src/store/postgres/connect.js';
import { migratePostgres } from '../../../src/store/postgres/migrate.js';
import {
  POSTGRES_MIGRATIONS,
  POSTGRES_ONLY_TABLES,
} from '../../../src/store/postgres/migrations.js';
import { usePostgresDatabase } from '../../support/postgres.js';

interface TableShape {
  /** `name → 'integer not null default 0'`: the type's family, null or not, its default. */
  columns: Record<string, string>;
  /** Primary, unique and foreign keys, as PostgreSQL writes them. */
  keys: string[];
  checks: number;
  /** Their names, columns in order and whether each is partial. */
  indexes: string[];
  triggers: string[];
}

type Shape = Record<string, TableShape>;

/** An index as both databases can say it: `name (a DESC, b), partial`. */
const index = (name: string, columns: string, partial: boolean) =>
  `${name} (${columns})${partial ? ', partial' : ''}`;

/** A column as both databases can say it: `text not null default 'pending'`. */
const column = (family: string, notNull: boolean, byDefault: string | null) =>
  `${family}${notNull ? ' not null' : ''}${byDefault === null ? '' : ` default ${byDefault}`}`;

/** SQLite's declared types, and PostgreSQL's, by the values they hold. */
const SQLITE_FAMILY: Record<string, string> = {
  INTEGER: 'integer',
  TEXT: 'text',
  REAL: 'real',
  BLOB: 'blob',
};
const POSTGRES_FAMILY: Record<string, string> = {
  bigint: 'integer',
  integer: 'integer',
  smallint: 'integer',
  text: 'text',
  'double precision': 'real',
  bytea: 'blob',
};

function sqliteShape(): Shape {
  const db = openDatabase(':memory:');
  try {
    const all = <T>(sql: string) => db.prepare(sql).all() as T[];
    const shape: Shape = {};
    const tables = all<{ name: string; sql: string }>(
      "SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    );
    for (const { name, sql } of tables) {
      const info = all<{
        name: string;
        type: string;
        notnull: number;
        pk: number;
        dflt_value: string | null;
      }>(`PRAGMA table_info(${name})`);
      const columns: Record<string, string> = {};
      // A primary key's columns are never null (an INTEGER PRIMARY KEY is the rowid).
      for (const c of info)
        columns[c.name] = column(
          SQLITE_FAMILY[c.type] ?? c.type,
          c.notnull === 1 || c.pk > 0,
          c.dflt_value,
        );
      const keys: string[] = [];
      const pk = info
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name);
      if (pk.length) keys.push(`PRIMARY KEY (${pk.join(', ')})`);
      for (const index of all<{ name: string; origin: string }>(`PRAGMA index_list(${name})`)) {
        if (index.origin !== 'u') continue;
        const cols = all<{ name: string }>(`PRAGMA index_info(${index.name})`).map((c) => c.name);
        keys.push(`UNIQUE (${cols.join(', ')})`);
      }
      for (const fk of all<{ table: string; from: string; to: string; on_delete: string }>(
        `PRAGMA foreign_key_list(${name})`,
      )) {
        const onDelete = fk.on_delete === 'NO ACTION' ? '' : ` ON DELETE ${fk.on_delete}`;
        keys.push(`FOREIGN KEY (${fk.from}) REFERENCES ${fk.table}(${fk.to})${onDelete}`);
      }
      shape[name] = {
        columns,
        keys: keys.sort(),
        checks: (sql.match(/\bCHECK\s*\(/gi) ?? []).length,
        indexes: all<{ name: string; sql: string }>(
          `SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL AND tbl_name = '${name}'`,
        )
          .map((r) => {
            const cols = all<{ name: string; desc: number; key: number }>(
              `PRAGMA index_xinfo(${r.name})`,
            )
              .filter((c) => c.key === 1)
              .map((c) => `${c.name}${c.desc ? ' DESC' : ''}`);
            return index(r.name, cols.join(', '), /\bWHERE\b/i.test(r.sql));
          })
          .sort(),
        triggers: all<{ name: string }>(
          `SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = '${name}'`,
        )
          .map((r) => r.name)
          .sort(),
      };
    }
    return shape;
  } finally {
    db.close();
  }
}

async function postgresShape(url: string): Promise<Shape> {
  const pool = await connectPostgres(url);
  try {
    await migratePostgres(pool, 'test');
    const rows = async <T>(sql: string) => (await pool.query(sql)).rows as T[];
    const shape: Shape = {};
    const tables = await rows<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
       WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    );
    for (const { table_name: name } of tables) {
      if (POSTGRES_ONLY_TABLES.includes(name)) continue;
      shape[name] = { columns: {}, keys: [], checks: 0, indexes: [], triggers: [] };
    }
    for (const c of await rows<{
      table_name: string;
      column_name: string;
      data_type: string;
      is_nullable: string;
      column_default: string | null;
    }>(
      `SELECT table_name, column_name, data_type, is_nullable, column_default
       FROM information_schema.columns
       WHERE table_schema = current_schema() ORDER BY ordinal_position`,
    )) {
      const table = shape[c.table_name];
      if (!table) continue;
      table.columns[c.column_name] = column(
        POSTGRES_FAMILY[c.data_type] ?? c.data_type,
        c.is_nullable === 'NO',
        // PostgreSQL writes the type of a default: 'pending'::text.
        c.column_default?.replace(/::[a-z ]+$/, '') ?? null,
      );
    }
    for (const c of await rows<{ table_name: string; type: string; def: string }>(
      `SELECT conrelid::regclass::text AS table_name, contype AS type,
              pg_get_constraintdef(oid) AS def
       FROM pg_constraint WHERE connamespace = current_schema()::regnamespace
         AND contype IN ('p', 'u', 'f', 'c')`,
    )) {
      const table = shape[c.table_name];
      if (!table) continue;
      if (c.type === 'c') table.checks++;
      else table.keys.push(c.def);
    }
    for (const i of await rows<{ tablename: string; indexname: string; indexdef: string }>(
      `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()
         AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
    )) {
      const cols = /USING \w+ \(([^)]*)\)/.exec(i.indexdef)?.[1] ?? i.indexdef;
      shape[i.tablename]?.indexes.push(index(i.indexname, cols, / WHERE /.test(i.indexdef)));
    }
    for (const t of await rows<{ table_name: string; trigger_name: string }>(
      `SELECT DISTINCT event_object_table AS table_name, trigger_name
       FROM information_schema.triggers WHERE trigger_schema = current_schema()`,
    ))
      shape[t.table_name]?.triggers.push(t.trigger_name);
    for (const table of Object.values(shape)) {
      table.keys.sort();
      table.indexes.sort();
      table.triggers.sort();
    }
    return shape;
  } finally {
    await pool.end();
  }
}

/** The shape with its tables in name order, for a diff that reads. */
const sorted = (shape: Shape): Shape =>
  Object.fromEntries(Object.entries(shape).sort(([a], [b]) => a.localeCompare(b)));

describe('the PostgreSQL schema', () => {
  const db = usePostgresDatabase();

  it('is level with the SQLite schema', () => {
    expect(POSTGRES_MIGRATIONS.at(-1)?.sqlite).toBe(MIGRATIONS.at(-1)?.version);
  });

  it('has the tables, columns, keys, checks, indexes and triggers of the SQLite schema', async () => {
    const sqlite = sorted(sqliteShape());
    const postgres = sorted(await postgresShape(db.url));
    expect(Object.keys(postgres)).toEqual(Object.keys(sqlite));
    expect(postgres).toEqual(sqlite);
  });
});
