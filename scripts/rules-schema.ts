/**
 * Writes `rules/schema.json` from the rule-file schema, so that editors validate and
 * complete rule files with the definition pipewatch itself uses. A test fails while the
 * committed file differs. Run: `node --import tsx scripts/rules-schema.ts`.
 */
import { writeFileSync } from 'node:fs';
import { RULES_SCHEMA_FILE, rulesJsonSchemaText } from '../src/rules/schema.js';

writeFileSync(RULES_SCHEMA_FILE, rulesJsonSchemaText());
process.stdout.write(`wrote ${RULES_SCHEMA_FILE}\n`);
