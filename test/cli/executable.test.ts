/**
 * The executable's first line is how `npx pipewatch` and the Docker image start node. Run
 * as the kernel runs it (its interpreter given the rest of the line as one argument, then
 * the program's), with the sources under tsx in place of the built file, node takes every
 * setting on it and pipewatch answers.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

describe('the executable', () => {
  it('starts node with settings node accepts, and pipewatch answers', () => {
    const first = readFileSync(MAIN, 'utf8').split('\n')[0]!;
    expect(first).toMatch(/^#!\/usr\/bin\/env -S node --/);
    const line = first.slice('#!'.length);
    const interpreter = line.slice(0, line.indexOf(' '));
    const argument = line.slice(interpreter.length + 1);
    const run = spawnSync(
      interpreter,
      [argument, '--import', import.meta.resolve('tsx'), MAIN, '--version'],
      { encoding: 'utf8' },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
