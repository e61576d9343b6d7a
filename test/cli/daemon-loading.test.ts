/**
 * The daemon loads a platform's library only when that platform is set up: `run --once`
 * with no chat or mail credentials loads neither discord.js, Bolt, nodemailer nor the
 * HTML sanitizer, and with a Slack bot token alone (no app) it loads Slack's Web API
 * client but neither Bolt nor discord.js; with a Discord bot token, discord.js's REST
 * client (`@discordjs/rest`) and not discord.js itself. Its plain rule files it reads
 * without the YAML library. Watching a real API, it does not load the simulator. It runs as a process against the simulator (served from the test, so to the
 * daemon a real API at a URL), with module hooks that list every package and every
 * module of the project it loaded.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STEP_HANG_MS } from '../fakes/daemon-process.js';
import { startDiscordFake } from '../fakes/discord.js';
import { DISCORD_TOKEN } from '../fakes/platforms.js';
import { type SimulatedApi, startSimulatedApi } from '../fakes/simulated-api.js';
import { startSlackFake } from '../fakes/slack.js';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./loaded-packages.mjs', import.meta.url));

/** The platforms' libraries. */
const PLATFORMS = ['discord.js', '@discordjs/rest', '@slack/bolt', 'nodemailer', 'sanitize-html'];

const RULES = `rules:
  - name: transco-constraints
    notices:
      pipelines: [transco]
      types: [constraint]
    notify:
      - webhook: "http://127.0.0.1:9/hook"
`;

const dirs: string[] = [];
let api: SimulatedApi;
beforeAll(async () => {
  api = await startSimulatedApi({ seed: 7, start: new Date('2025-03-03T15:00:00Z'), rules: RULES });
  return async () => {
    await api.sim.close();
    rmSync(api.dataDir, { recursive: true, force: true });
  };
});
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs `pipewatch run --once` with `env` and returns the packages it loaded. */
async function daemonPackages(env: Record<string, string>) {
  return (await daemonLoaded(env)).packages;
}

/**
 * Runs `pipewatch run --once` with `env` and returns the packages and the project's
 * modules (`src/cli/run.ts`) it loaded.
 */
async function daemonLoaded(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-daemon-loading-'));
  dirs.push(dir);
  const list = join(dir, 'packages');
  const modules = join(dir, 'modules');
  // Not spawnSync: the simulator answers from this process.
  const child = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), '--import', PRELOAD, MAIN, 'run', '--once'],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? dir,
          LOADED_PACKAGES_FILE: list,
          LOADED_MODULES_FILE: modules,
          ...api.env,
          PIPEWATCH_DATA_DIR: mkdtempSync(join(dir, 'data-')),
          ...env,
        },
      },
      (error, stdout, stderr) => (error ? reject(error) : resolve({ stdout, stderr })),
    ),
  );
  expect(child.stderr).not.toMatch(/"level":50/);
  expect(child.stdout).toContain('stored:');
  const lines = (file: string) => new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean));
  return { packages: lines(list), modules: lines(modules) };
}

// Each test starts pipewatch once, seconds of CPU: its bound is for a hang.
describe('the daemon loading', { timeout: STEP_HANG_MS }, () => {
  it('loads no platform library, nor the HTML converter, when no platform is set up', async () => {
    const names = await daemonPackages({});
    expect(names).toContain('better-sqlite3');
    expect([...PLATFORMS, 'html-to-text'].filter((p) => names.has(p))).toEqual([]);
  });

  it('reads plain rule files without the YAML library', async () => {
    const names = await daemonPackages({});
    expect(names).toContain('zod');
    expect(names.has('yaml')).toBe(false);
  });

  it("loads Slack's Web API client with its bot token, and neither Bolt nor discord.js", async () => {
    const slack = await startSlackFake();
    try {
      const names = await daemonPackages({
        SLACK_BOT_TOKEN: slack.token,
        SLACK_API_URL: slack.url,
      });
      expect(names).toContain('@slack/web-api');
      expect(
        ['@slack/bolt', 'discord.js', '@discordjs/rest', 'nodemailer'].filter((p) => names.has(p)),
      ).toEqual([]);
    } finally {
      await slack.close();
    }
  });

  it("loads discord.js's REST client with a Discord bot token, and not all of discord.js", async () => {
    const discord = await startDiscordFake({ token: DISCORD_TOKEN });
    try {
      const names = await daemonPackages({
        DISCORD_BOT_TOKEN: DISCORD_TOKEN,
        DISCORD_API_URL: discord.url,
      });
      expect(names).toContain('@discordjs/rest');
      expect(['discord.js', '@slack/web-api', 'nodemailer'].filter((p) => names.has(p))).toEqual(
        [],
      );
    } finally {
      await discord.close();
    }
  });

  it('does not load the simulator when it watches an API at a URL', async () => {
    const { modules } = await daemonLoaded({});
    expect(modules).toContain('src/upstream/client.ts');
    // The `demo` and `simulate` commands' definitions read the simulator's defaults and
    // the storyline's timing for their help: data, not the simulator.
    const definitions = ['options.ts', 'storyline.ts', 'sim-time.ts'].map(
      (m) => `src/simulator/${m}`,
    );
    expect(
      [...modules].filter((m) => m.startsWith('src/simulator/') && !definitions.includes(m)),
    ).toEqual([]);
  });
});
