/**
 * Writes `docs/webhook.schema.json` from the webhook body schema
 * (`src/channels/webhook/body-schema.ts`), formatted as the linter keeps JSON, so that
 * receivers validate against the definition pipewatch itself is tested against. A test
 * fails while the committed file differs. Run: `node --import tsx scripts/webhook-schema.ts`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { WEBHOOK_SCHEMA_FILE, webhookJsonSchema } from '../src/channels/webhook/body-schema.js';

mkdirSync(dirname(WEBHOOK_SCHEMA_FILE), { recursive: true });
writeFileSync(WEBHOOK_SCHEMA_FILE, `${JSON.stringify(webhookJsonSchema(), null, 2)}\n`);
execFileSync('npx', ['biome', 'format', '--write', WEBHOOK_SCHEMA_FILE], { stdio: 'inherit' });
process.stdout.write(`wrote ${WEBHOOK_SCHEMA_FILE}\n`);
