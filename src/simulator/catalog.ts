/**
 * The public catalog: descriptions of the service's notices and pipelines tables, worded
 * as spec section 2.4 words them, and their hashes, by which clients detect changes.
 */
import { createHash } from 'node:crypto';
import type { CatalogTable, WireTable, WireTableField } from './types.js';

type FieldRow = [name: string, type: string, description: string];

const NTZ = 'TIMESTAMP_NTZ(9)';
const TZ = 'TIMESTAMP_TZ(9)';
const TEXT = 'VARCHAR(16777216)';
const SHORT = 'VARCHAR(255)';
const INT = 'NUMBER(38,0)';

const NOTICE_FIELDS: FieldRow[] = [
  ['ID', INT, 'Primary key.'],
  ['PIPELINE_ID', INT, 'Foreign key to the pipelines table.'],
  ['SUBJECT', SHORT, 'Subject.'],
  ['IDENTIFIER', SHORT, "Pipeline's notice id."],
  ['URL', SHORT, 'Notice or postings URL.'],
  ['CATEGORY', SHORT, 'Category.'],
  ['TYPE', SHORT, 'Type.'],
  ['STATUS', SHORT, 'May be empty.'],
  ['PRIOR_IDENTIFIER', SHORT, 'Currently unused; reserved for the identifier of a prior notice.'],
  ['NOTICE', TEXT, 'Text without HTML.'],
  ['HTML', TEXT, 'Text with HTML.'],
  ['MOBILE', TEXT, 'Mobile-adapted HTML.'],
  ['POSTED_AT', NTZ, 'UTC.'],
  ['EFFECTIVE_AT', NTZ, 'UTC.'],
  ['END_AT', NTZ, 'UTC.'],
  ['RESPONSE_AT', NTZ, 'UTC.'],
  ['SERVICE_CREATED_AT', NTZ, 'UTC.'],
  ['SERVICE_UPDATED_AT', NTZ, 'UTC.'],
  ['HTML_FULL', TEXT, 'Text with full HTML tags.'],
  ['POSTED_AT_LOCAL', TZ, "In the pipeline's local timezone."],
  ['EFFECTIVE_AT_LOCAL', TZ, 'Local timezone.'],
  ['END_AT_LOCAL', TZ, 'Local timezone.'],
  ['RESPONSE_AT_LOCAL', TZ, 'Local timezone.'],
];

const PIPELINE_FIELDS: FieldRow[] = [
  ['ID', INT, 'Primary key.'],
  ['NAME', SHORT, 'Pipeline name.'],
  ['SLUG', SHORT, 'Short lowercase dashed identifier.'],
  ['URL', SHORT, 'Informational postings URL.'],
  ['TSP_NAME', SHORT, 'TSP name.'],
  ['TSP_ID', SHORT, 'TSP id.'],
  ['SERVICE_CREATED_AT', NTZ, 'UTC.'],
  ['SERVICE_UPDATED_AT', NTZ, 'UTC.'],
  [
    'TIMEZONE',
    SHORT,
    'Timezone the pipeline uses for display; Unknown when the pipeline does not provide it.',
  ],
  [
    'TIMEZONE_IDENTIFIER',
    SHORT,
    'Timezone identifier used to compute local time; the identifier for the US Central zone ' +
      '(America/Chicago) is used when TIMEZONE is Unknown.',
  ],
];

const DESCRIPTIONS: Record<CatalogTable, string> = {
  notices: 'The list of critical notices by the tracked pipelines.',
  pipelines: 'The list of pipelines currently being tracked.',
};

const toField = ([name, type, description]: FieldRow): WireTableField => ({
  name,
  description,
  type,
});

/** The hashes served by /catalog/hashes. */
export interface CatalogHashes {
  tables: string;
  notices: string;
  pipelines: string;
}

/** The catalog of one simulator; fields added through control change its hashes. */
export class Catalog {
  private readonly fields: Record<CatalogTable, WireTableField[]> = {
    notices: NOTICE_FIELDS.map(toField),
    pipelines: PIPELINE_FIELDS.map(toField),
  };

  /** The description served by /catalog/tables, where ID reads "Primary key.". */
  private tableInList(table: CatalogTable): WireTable {
    return {
      name: table,
      description: DESCRIPTIONS[table],
      fields: this.fields[table].map((f) => ({ ...f })),
      primary_key: 'ID',
    };
  }

  /** The description served by /catalog/table/{name}, where ID reads "The primary key.". */
  table(table: CatalogTable): WireTable {
    const t = this.tableInList(table);
    t.fields = t.fields.map((f) =>
      f.name === 'ID' ? { ...f, description: 'The primary key.' } : f,
    );
    return t;
  }

  /** The `data` of /catalog/tables. */
  tables(): WireTable[] {
    return [this.tableInList('notices'), this.tableInList('pipelines')];
  }

  /** SHA-256 of the compact JSON text of each catalog endpoint's `data`, as served. */
  hashes(): CatalogHashes {
    return {
      tables: sha256(JSON.stringify(this.tables())),
      notices: sha256(JSON.stringify(this.table('notices'))),
      pipelines: sha256(JSON.stringify(this.table('pipelines'))),
    };
  }

  /** Adds a field to a table (or replaces one of the same name), as a schema change would. */
  addField(table: CatalogTable, field: WireTableField): void {
    const list = this.fields[table];
    const at = list.findIndex((f) => f.name === field.name);
    const copy = { name: field.name, description: field.description, type: field.type };
    if (at >= 0) list[at] = copy;
    else list.push(copy);
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
