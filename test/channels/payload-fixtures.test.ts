/**
 * What each channel sends, byte for byte, for one alert of every kind and state: the
 * pure renderers' output for the shared samples against the files under
 * `test/fixtures/payloads/<channel>/<kind>.<ext>` (formats in `payload-fixtures.ts`).
 * Those files are what users see; a change to one is a change to what they get, and
 * shows in review as such.
 *
 * After a deliberate change, rewrite the files instead of comparing them with
 *   UPDATE_FIXTURES=1 npx vitest run test/channels/payload-fixtures.test.ts
 * and read the diff before committing it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANNELS, FIXTURES, fixtureFile, fixtureKinds } from './payload-fixtures.js';
import { sampleAlerts } from './payload-samples.js';

const UPDATE = process.env.UPDATE_FIXTURES === '1';

for (const [channel, fixture] of Object.entries(CHANNELS)) {
  describe(`${channel} sends, byte for byte`, () => {
    for (const kind of fixtureKinds(channel)) {
      it(kind, () => {
        const actual = fixture.render(sampleAlerts(kind, fixture.target));
        const file = fixtureFile(channel, kind);
        if (UPDATE) {
          mkdirSync(join(FIXTURES, channel), { recursive: true });
          writeFileSync(file, actual);
          return;
        }
        expect(existsSync(file), `${file} is missing: run with UPDATE_FIXTURES=1`).toBe(true);
        expect(actual).toBe(readFileSync(file, 'utf8'));
        expect(Buffer.from(actual).equals(readFileSync(file))).toBe(true);
      });
    }

    it.skipIf(UPDATE)('has no fixture of a kind it no longer sends', () => {
      const expected = fixtureKinds(channel).map((k) => `${k}.${fixture.ext}`);
      const files = readdirSync(join(FIXTURES, channel), { withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name);
      expect(files.sort()).toEqual(expected.sort());
    });
  });
}
