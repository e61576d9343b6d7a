/**
 * The package `npm pack` makes is pipewatch whole, wherever it is installed: the built
 * program, the example rules, the Slack manifest and the licence, and nothing it must not
 * carry (sources, tests, a database, an `.env`). Installed, it runs with no build: its
 * executable answers `--help`, validates its own rules and plays the demo from a folder
 * that holds nothing of pipewatch's.
 *
 * The package is unpacked beside this checkout's node_modules rather than installed from
 * the registry, which would mean the network and compiling the native addons again; what
 * npm adds at install (the dependencies, the executable on PATH) is not pipewatch's to
 * test. It packs the `dist/` there is (`npm run build` first), as `npm pack` does after
 * its `prepack` build.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadRules } from '../src/rules/loader.js';
import type { Rule } from '../src/rules/types.js';
import { assertBuilt } from './fakes/daemon-process.js';
import { type DemoProcess, startDemo } from './fakes/demo-process.js';

const ROOT = join(import.meta.dirname, '..');
const run = promisify(execFile);

/** A bound for a hang only: packing and unpacking take a few seconds of CPU. */
const PACK_HANG_MS = 120_000;
/** A bound for a hang only: the demo's first alert comes seconds after its baseline. */
const DEMO_HANG_MS = 180_000;

/** SHA-256 of the Apache License 2.0 as apache.org serves it (LICENSE-2.0.txt). */
const APACHE_2_0_SHA256 = 'cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30';

interface Packed {
  filename: string;
  files: { path: string; mode: number }[];
}

/** What the package's `package.json` says of itself. */
interface Manifest {
  name: string;
  version: string;
  license?: string;
  private?: boolean;
  bin?: Record<string, string>;
  scripts?: Record<string, string>;
}

let packed: Packed;
let paths: string[];
/** The unpacked package, beside a `node_modules` of its dependencies. */
let home: string;
let manifest: Manifest;

beforeAll(async () => {
  await assertBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-pack-'));
  const { stdout } = await run(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', dir],
    { cwd: ROOT, timeout: PACK_HANG_MS, env: { ...process.env, npm_config_loglevel: 'error' } },
  );
  [packed] = JSON.parse(stdout) as [Packed];
  paths = packed.files.map((f) => f.path).sort();
  await run('tar', ['-xzf', join(dir, packed.filename), '-C', dir], { timeout: PACK_HANG_MS });
  home = join(dir, 'package');
  symlinkSync(join(ROOT, 'node_modules'), join(home, 'node_modules'), 'dir');
  manifest = JSON.parse(readFileSync(join(home, 'package.json'), 'utf8')) as Manifest;
}, PACK_HANG_MS);

describe('npm pack', () => {
  it('carries the built program, every module of it, and no source map', () => {
    expect(paths).toContain('dist/main.js');
    const sources = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((p) => p.endsWith('.ts'))
      .map((p) => `dist/${p.replace(/\.ts$/, '.js').split('\\').join('/')}`);
    expect(sources.filter((p) => !paths.includes(p))).toEqual([]);
    expect(paths.filter((p) => p.startsWith('dist/') && !p.endsWith('.js'))).toEqual([]);
  });

  it('carries the example rules, the container rules, the Slack manifest, the docs and the licence', () => {
    for (const path of [
      'rules/gas-constraints.yaml',
      'rules/low-oac.yaml',
      'rules/response-reminders.yaml',
      'rules/schema.json',
      'docker/rules/console.yaml',
      'docs/webhook.schema.json',
      'docs/configuration.md',
      'docs/rules.md',
      'slack-app-manifest.yaml',
      'README.md',
      'LICENSE',
      'package.json',
    ])
      expect(paths).toContain(path);
  });

  it('leaves out sources, tests, benchmarks, data and secrets', () => {
    const outside = paths.filter(
      (p) =>
        /^(src|test|bench|scripts|data|node_modules|coverage|\.ci|\.git)\//.test(p) ||
        /(^|\/)\.env|\.(db|db-wal|db-shm|pem|key|ts|map)$/.test(p) ||
        /^(tsconfig|biome|vitest)/.test(p),
    );
    expect(outside).toEqual([]);
  });

  it('is Apache-2.0, public, with the whole licence text', () => {
    expect(manifest.license).toBe('Apache-2.0');
    expect(manifest.private).toBeUndefined();
    const licence = readFileSync(join(home, 'LICENSE'));
    expect(createHash('sha256').update(licence).digest('hex')).toBe(APACHE_2_0_SHA256);
  });

  it('builds nothing at install: no script npm runs when it installs the package', () => {
    // `prepare` is not run for a tarball, but npm lists it among a package's install scripts.
    const atInstall = ['preinstall', 'install', 'postinstall', 'prepare'];
    expect(Object.keys(manifest.scripts ?? {}).filter((s) => atInstall.includes(s))).toEqual([]);
    expect(manifest.bin).toEqual({ pipewatch: 'dist/main.js' });
    // npm keeps the mode it packs, and the first line starts node (src/main.ts).
    const main = packed.files.find((f) => f.path === 'dist/main.js');
    expect((main?.mode ?? 0) & 0o111).toBe(0o111);
  });
});

describe('the packed executable, unpacked anywhere', () => {
  /** A folder with nothing of pipewatch's in it, as a user's is. */
  const elsewhere = () => mkdtempSync(join(tmpdir(), 'pipewatch-elsewhere-'));
  const bin = () => join(home, manifest.bin?.pipewatch ?? 'missing');
  const env = () => ({ PATH: process.env.PATH, HOME: process.env.HOME });

  it('answers --help and --version', async () => {
    const help = await run(bin(), ['--help'], { cwd: elsewhere(), env: env() });
    expect(help.stdout).toMatch(/^Usage: pipewatch /);
    expect(help.stdout).toMatch(/^ {2}demo /m);
    const version = await run(bin(), ['--version'], { cwd: elsewhere(), env: env() });
    expect(version.stdout).toBe(`${manifest.version}\n`);
  });

  it('validates the rules it ships, each folder', async () => {
    for (const [dir, count] of [
      ['rules', '3 rules in 3 files'],
      ['docker/rules', '3 rules in 1 file'],
    ] as const) {
      const cwd = elsewhere();
      const check = await run(bin(), ['rules', 'validate', relative(cwd, join(home, dir))], {
        cwd,
        env: env(),
      });
      expect(check.stdout).toMatch(new RegExp(`^rules: ${count} `));
    }
  });

  let demo: DemoProcess | undefined;
  afterEach(async () => {
    await demo?.stop();
    demo = undefined;
  });

  it(
    'plays the demo with its own example rules until the first alert, and stops on Ctrl-C',
    async () => {
      demo = startDemo({}, ['--at', '2026-11-24T19:00:00Z'], bin());
      await demo.printed(/^ALERT \S+ → /m);
      expect(demo.stdout()).toContain(`rules from ${join(home, 'rules')}/:`);
      expect(await demo.stop()).toBe(0);
      demo = undefined;
    },
    DEMO_HANG_MS,
  );
});

describe('the container rules', () => {
  /** A rule as it decides, leaving out where it is written and where it sends. */
  const decides = (rule: Rule) =>
    JSON.stringify(rule, (key, value) => (key === 'at' || key === 'notify' ? undefined : value));

  it('are the example rules, printed to the console instead of sent', () => {
    const examples = loadRules(join(ROOT, 'rules'));
    const container = loadRules(join(ROOT, 'docker', 'rules'));
    expect([...examples.problems, ...container.problems]).toEqual([]);
    expect(container.rules.map(decides).sort()).toEqual(examples.rules.map(decides).sort());
    expect(container.rules.flatMap((r) => r.notify.map((t) => t.kind))).toEqual([
      'console',
      'console',
      'console',
    ]);
  });
});
