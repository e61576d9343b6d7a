import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { formatProblem, type Rule, type RuleProblem } from '../../src/rules/types.js';
import { type RuleWatcher, watchRules } from '../../src/rules/watch.js';

const logger = createLogger({ level: 'silent' });

function ruleFile(name: string, body = 'notices: {}'): string {
  return `rules:\n  - name: ${name}\n    ${body}\n    notify: [{ console: true }]\n`;
}

/** Writes a file in one step (as editors save), so no reload can see it half-written. */
function save(dir: string, name: string, text: string): void {
  writeFileSync(join(dir, `.${name}.tmp`), text);
  renameSync(join(dir, `.${name}.tmp`), join(dir, name));
}

/** Waits for file events to be seen and handled: short awaits, bounded in total. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('watchRules', () => {
  let watcher: RuleWatcher | undefined;
  afterEach(() => watcher?.close());

  function start(dir: string) {
    const changes: Rule[][] = [];
    const rejections: RuleProblem[][] = [];
    watcher = watchRules(dir, {
      onChange: (rules) => {
        changes.push(rules);
      },
      onRejected: (problems) => rejections.push(problems),
      logger,
      debounceMs: 20,
      cwd: dir,
    });
    return { changes, rejections };
  }

  it('applies a valid change, rejects an invalid one with its problems, and applies the fix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipewatch-watch-'));
    save(dir, 'a.yaml', ruleFile('first'));
    const { changes, rejections } = start(dir);

    save(dir, 'b.yaml', ruleFile('second'));
    await until(() => changes.length === 1, 'the new file to be applied');
    expect(changes[0]!.map((r) => r.name)).toEqual(['first', 'second']);

    save(dir, 'a.yaml', ruleFile('first', 'notices: { on: [neww] }'));
    await until(() => rejections.length === 1, 'the bad change to be rejected');
    expect(rejections[0]!.map(formatProblem)).toEqual([
      "a.yaml:3:21: on[0]: 'neww' is not one of new, updated — did you mean 'new'?",
    ]);
    expect(changes).toHaveLength(1);

    save(dir, 'a.yaml', ruleFile('first', 'capacity: { oac_below: 10 }'));
    await until(() => changes.length === 2, 'the fix to be applied');
    expect(changes[1]!.map((r) => `${r.name} ${r.kind}`)).toEqual([
      'first capacity',
      'second notices',
    ]);
  });

  it('rejects a name used twice, and sees a removal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipewatch-watch-'));
    save(dir, 'a.yaml', ruleFile('ops'));
    const { changes, rejections } = start(dir);

    save(dir, 'b.yaml', ruleFile('ops'));
    await until(() => rejections.length === 1, 'the duplicate name to be rejected');
    expect(rejections[0]!.map(formatProblem)).toEqual([
      "b.yaml:2:5: duplicate rule name 'ops', first used at a.yaml:2:5",
    ]);

    rmSync(join(dir, 'b.yaml'));
    await until(() => changes.length === 1, 'the removal to be applied');
    expect(changes[0]!.map((r) => r.name)).toEqual(['ops']);
  });

  it('reports nothing after close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipewatch-watch-'));
    const { changes, rejections } = start(dir);
    watcher!.close();
    save(dir, 'a.yaml', ruleFile('late'));
    // A second watcher on the same directory shows when the event has been delivered.
    const probe = start(dir);
    save(dir, 'b.yaml', ruleFile('probe'));
    await until(() => probe.changes.length > 0, 'the probe watcher to reload');
    expect(changes).toEqual([]);
    expect(rejections).toEqual([]);
  });
});
