// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Compose's ${VAR} is what is read here
/**
 * `deploy/compose.yaml`, read as Compose reads it (YAML with merge keys), holds what
 * running replicas needs: PostgreSQL and two replicas on one database URL and one
 * unsubscribe key, each service with a healthcheck and a restart policy, the replicas
 * started only once PostgreSQL is healthy, the rules mounted read-only, the database's
 * data in a named volume, no secret written into the file, and every `${VAR}` it uses
 * documented in `deploy/.env.example`. Docker itself is not run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { VARIABLES } from '../../src/config/index.js';

const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));
const text = readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8');
const envExample = readFileSync(join(DEPLOY, '.env.example'), 'utf8');

interface Service {
  image?: string;
  build?: { context: string; dockerfile?: string };
  command?: string[];
  restart?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string };
  volumes?: Array<string | Record<string, unknown>>;
  ports?: string[];
}

interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const compose = parse(text, { merge: true }) as Compose;
const services = Object.entries(compose.services);
const replicas = services.filter(([, s]) => s.command?.join(' ') === 'run');
const postgres = compose.services.postgres;

/** What must come from `.env`, never be written in the file. */
const SECRETS = [
  'PIPEWATCH_API_URL',
  'PIPEWATCH_API_USER',
  'PIPEWATCH_API_KEY',
  'SLACK_BOT_TOKEN',
  'SMTP_URL',
  'PIPEWATCH_SECRET_KEY',
  'POSTGRES_PASSWORD',
];

/** `${VAR:?message}`, `${VAR:-default}` and `${VAR}` alike as `${VAR}`. */
const bare = (value: string | undefined) =>
  value?.replace(/\$\{(\w+)(?::?[-?+][^}]*)?\}/g, '${$1}');

/** The variable a value is wholly made of, as in `${VAR:?…}`; undefined for anything else. */
const reference = (value: string | undefined) =>
  /^\$\{(\w+)(?::?[-?+][^}]*)?\}$/.exec(value ?? '')?.[1];

/** The names `.env.example` assigns, each with the comment lines just above it. */
function documented(): Map<string, string> {
  const lines = envExample.split('\n');
  const names = new Map<string, string>();
  lines.forEach((line, i) => {
    const name = /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1];
    if (!name) return;
    let comment = '';
    for (let j = i - 1; j >= 0 && /^(#|[A-Z][A-Z0-9_]*=)/.test(lines[j] ?? ''); j--)
      if (lines[j]?.startsWith('#')) comment = `${lines[j]}\n${comment}`;
    names.set(name, comment);
  });
  return names;
}

describe('deploy/compose.yaml', () => {
  it('runs PostgreSQL 16 and two replicas of pipewatch run, built from the repository', () => {
    expect(postgres?.image).toMatch(/^postgres:16(\b|$)/);
    expect(replicas.map(([name]) => name)).toHaveLength(2);
    for (const [name, s] of replicas) {
      const build = s.build;
      expect(build, name).toBeDefined();
      const dockerfile = resolve(DEPLOY, build!.context, build!.dockerfile ?? 'Dockerfile');
      expect(existsSync(dockerfile), dockerfile).toBe(true);
      expect(readFileSync(dockerfile, 'utf8')).toMatch(/^ENTRYPOINT \[".*\/bin\/pipewatch"\]$/m);
    }
  });

  it('gives both replicas the same database URL, on the postgres service, and the same unsubscribe key', () => {
    const [[, a], [, b]] = replicas as [[string, Service], [string, Service]];
    for (const name of ['PIPEWATCH_DATABASE_URL', 'PIPEWATCH_SECRET_KEY']) {
      expect(a.environment?.[name], name).toBeDefined();
      expect(a.environment?.[name], name).toBe(b.environment?.[name]);
    }
    const env = postgres?.environment ?? {};
    expect(bare(a.environment?.PIPEWATCH_DATABASE_URL)).toBe(
      `postgres://${env.POSTGRES_USER}:${bare(env.POSTGRES_PASSWORD)}@postgres:5432/${env.POSTGRES_DB}`,
    );
    expect(reference(env.POSTGRES_PASSWORD)).toBe('POSTGRES_PASSWORD');
    expect(reference(a.environment?.PIPEWATCH_SECRET_KEY)).toBe('PIPEWATCH_SECRET_KEY');
  });

  it('takes every secret from .env, each as the variable of its own name', () => {
    const secret = new Set(
      Object.values(VARIABLES)
        .filter((v) => v.secret)
        .map((v) => v.name),
    );
    for (const [name, s] of services) {
      for (const [key, value] of Object.entries(s.environment ?? {})) {
        if (key === 'PIPEWATCH_DATABASE_URL') continue; // its password is POSTGRES_PASSWORD, above
        if (secret.has(key) || SECRETS.includes(key))
          expect(reference(value), `${name}: ${key}`).toBe(key);
      }
    }
    for (const key of SECRETS)
      expect(
        services.filter(([, s]) => s.environment?.[key] !== undefined).length,
        key,
      ).toBeGreaterThan(0);
  });

  it('names only variables pipewatch reads in the replicas', () => {
    const known = new Set(Object.values(VARIABLES).map((v) => v.name));
    for (const [name, s] of replicas)
      for (const key of Object.keys(s.environment ?? {}))
        expect(known.has(key), `${name}: ${key}`).toBe(true);
  });

  it('gives every service a healthcheck: pg_isready, and the replicas their /healthz on every interface', () => {
    const check = (s: Service) => [s.healthcheck?.test ?? []].flat().join(' ');
    expect(check(postgres!)).toMatch(/\bpg_isready\b/);
    for (const [name, s] of replicas) {
      expect(check(s), name).toMatch(/\/healthz/);
      expect(check(s), name).toContain('process.env.PIPEWATCH_HTTP_PORT');
      expect(s.environment?.PIPEWATCH_HTTP_HOST, name).toBe('0.0.0.0');
      const port = s.environment?.PIPEWATCH_HTTP_PORT;
      expect(port, name).toMatch(/^\d+$/);
      for (const published of s.ports ?? [])
        expect(published.split(':').at(-1), `${name}: ${published}`).toBe(port);
    }
    for (const [name, s] of services) expect(s.healthcheck, name).toBeDefined();
  });

  it('restarts every service unless stopped, and starts the replicas once PostgreSQL is healthy', () => {
    for (const [name, s] of services) expect(s.restart, name).toBe('unless-stopped');
    for (const [name, s] of replicas)
      expect(s.depends_on?.postgres, name).toEqual({ condition: 'service_healthy' });
  });

  it('mounts ./rules read-only in both replicas, never creating it', () => {
    for (const [name, s] of replicas) {
      expect(s.volumes, name).toContainEqual(
        expect.objectContaining({
          type: 'bind',
          source: './rules',
          target: '/app/rules',
          read_only: true,
          bind: { create_host_path: false },
        }),
      );
    }
  });

  it("keeps PostgreSQL's data in a named volume", () => {
    const data = (postgres?.volumes ?? []).find(
      (v): v is string => typeof v === 'string' && v.endsWith(':/var/lib/postgresql/data'),
    );
    const volume = data?.split(':')[0] ?? '';
    expect(volume).toMatch(/^[\w-]+$/);
    expect(Object.keys(compose.volumes ?? {})).toContain(volume);
  });

  it('uses only variables that deploy/.env.example lists, each with a comment', () => {
    const used = new Set([...text.matchAll(/\$\{(\w+)/g)].map((m) => m[1]!));
    expect(used.size).toBeGreaterThan(5);
    const listed = documented();
    for (const name of used) {
      expect(listed.has(name), `${name} in .env.example`).toBe(true);
      expect(listed.get(name), `a comment above ${name}`).toMatch(/#\s*\S/);
    }
  });
});

describe('the reading of ${…}', () => {
  it('takes a reference with or without its default or message', () => {
    expect(bare('postgres://u:${P:?set P}@h/${D:-x}')).toBe('postgres://u:${P}@h/${D}');
    expect(reference('${SMTP_URL:-}')).toBe('SMTP_URL');
    expect(reference('x${SMTP_URL}')).toBeUndefined();
  });
});
