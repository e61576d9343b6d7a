import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { basic, DEMO_AUTH, useSimulators } from './helpers.js';

const start = useSimulators();
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const ENDPOINTS = [
  '/api/v1/catalog/hashes',
  '/api/v1/catalog/tables',
  '/api/v1/catalog/table/notices',
  '/api/v1/catalog/table/pipelines',
  '/api/v1/hello',
  '/api/v1/ip/notices',
  '/api/v1/ip/pipelines',
  '/api/v1/ip/capacity/transco',
];

describe('envelope', () => {
  it('wraps every endpoint, success and error, in {status, messages, meta, data}', async () => {
    const { call } = await start();
    const paths = [...ENDPOINTS, '/api/v1/nope', '/api/v1/ip/capacity/nope', '/elsewhere'];
    for (const path of paths) {
      for (const auth of [undefined, null, basic('x', 'y')]) {
        const r = await call(path, { auth });
        expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(Object.keys(r.json)).toEqual(['status', 'messages', 'meta', 'data']);
        expect(Array.isArray(r.json.messages)).toBe(true);
        if (r.status === 200) expect(r.json.status).toBe('success');
        else {
          expect(r.json).toMatchObject({ status: 'error', meta: {}, data: {} });
          expect(r.json.messages[0]).toMatch(/\w/);
        }
      }
    }
  });

  it('answers unknown paths with 404 and wrong methods with 405', async () => {
    const { call } = await start();
    expect((await call('/api/v1/ip/unknown')).status).toBe(404);
    expect((await call('/api/v2/hello')).status).toBe(404);
    const r = await call('/api/v1/ip/notices', { method: 'DELETE' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toContain('GET');
    expect((await call('/api/v1/catalog/tables', { method: 'POST', body: '' })).status).toBe(405);
  });
});

describe('hello', () => {
  it('greets the World on GET and echoes a posted form name', async () => {
    const { call } = await start();
    expect((await call('/api/v1/hello')).json).toEqual({
      status: 'success',
      messages: [],
      meta: {},
      data: { name: 'World' },
    });
    const form = 'application/x-www-form-urlencoded';
    const posted = await call('/api/v1/hello', {
      method: 'POST',
      body: 'name=Gas%20Control',
      type: form,
    });
    expect(posted.json.data).toEqual({ name: 'Gas Control' });
    const bare = await call('/api/v1/hello', { method: 'POST', body: '', type: form });
    expect(bare.json.data).toEqual({ name: 'World' });
  });
});

describe('credentials', () => {
  const EXACT_401 =
    '{"status":"error","messages":["The API user or key does not appear to be valid."],"meta":{},"data":{}}';

  it('rejects private endpoints without valid credentials with the exact 401 body', async () => {
    const { call } = await start();
    for (const path of ENDPOINTS.filter((p) => p.includes('/ip/'))) {
      for (const auth of [
        null,
        basic('pipewatch', 'wrong'),
        basic('nobody', 'sim-premium-key'),
        'Bearer x',
      ]) {
        const r = await call(path, { auth });
        expect(r.status).toBe(401);
        expect(r.text).toBe(EXACT_401);
        expect(r.headers.get('www-authenticate')).toBe('Basic realm="Pipeline Information API"');
      }
    }
  });

  it('serves public endpoints with valid, invalid or no credentials alike', async () => {
    const { call } = await start();
    for (const path of ENDPOINTS.filter((p) => !p.includes('/ip/'))) {
      const texts = new Set<string>();
      for (const auth of [undefined, null, DEMO_AUTH, basic('bad', 'creds')]) {
        const r = await call(path, { auth });
        expect(r.status).toBe(200);
        texts.add(r.text);
      }
      expect(texts.size).toBe(1);
    }
  });
});

describe('catalog', () => {
  it('describes the notices and pipelines tables exactly as the spec lists them', async () => {
    const { call } = await start();
    const tables = (await call('/api/v1/catalog/tables')).json.data as Array<{
      name: string;
      description: string;
      primary_key: string;
      fields: Array<{ name: string; type: string; description: string }>;
    }>;
    expect(tables.map((t) => t.name)).toEqual(['notices', 'pipelines']);
    const [notices, pipelines] = tables;
    expect(notices!.primary_key).toBe('ID');
    expect(notices!.fields.map((f) => `${f.name}:${f.type}`)).toEqual([
      'ID:NUMBER(38,0)',
      'PIPELINE_ID:NUMBER(38,0)',
      'SUBJECT:VARCHAR(255)',
      'IDENTIFIER:VARCHAR(255)',
      'URL:VARCHAR(255)',
      'CATEGORY:VARCHAR(255)',
      'TYPE:VARCHAR(255)',
      'STATUS:VARCHAR(255)',
      'PRIOR_IDENTIFIER:VARCHAR(255)',
      'NOTICE:VARCHAR(16777216)',
      'HTML:VARCHAR(16777216)',
      'MOBILE:VARCHAR(16777216)',
      'POSTED_AT:TIMESTAMP_NTZ(9)',
      'EFFECTIVE_AT:TIMESTAMP_NTZ(9)',
      'END_AT:TIMESTAMP_NTZ(9)',
      'RESPONSE_AT:TIMESTAMP_NTZ(9)',
      'SERVICE_CREATED_AT:TIMESTAMP_NTZ(9)',
      'SERVICE_UPDATED_AT:TIMESTAMP_NTZ(9)',
      'HTML_FULL:VARCHAR(16777216)',
      'POSTED_AT_LOCAL:TIMESTAMP_TZ(9)',
      'EFFECTIVE_AT_LOCAL:TIMESTAMP_TZ(9)',
      'END_AT_LOCAL:TIMESTAMP_TZ(9)',
      'RESPONSE_AT_LOCAL:TIMESTAMP_TZ(9)',
    ]);
    expect(notices!.fields[0]!.description).toBe('Primary key.');
    expect(notices!.fields[1]!.description).toBe('Foreign key to the pipelines table.');
    expect(notices!.fields[8]!.description).toBe(
      'Currently unused; reserved for the identifier of a prior notice.',
    );
    expect(pipelines!.primary_key).toBe('ID');
    expect(pipelines!.fields.map((f) => f.name)).toEqual([
      'ID',
      'NAME',
      'SLUG',
      'URL',
      'TSP_NAME',
      'TSP_ID',
      'SERVICE_CREATED_AT',
      'SERVICE_UPDATED_AT',
      'TIMEZONE',
      'TIMEZONE_IDENTIFIER',
    ]);
    expect(
      pipelines!.fields.every(
        (f) => f.type === 'VARCHAR(255)' || f.name === 'ID' || f.name.startsWith('SERVICE_'),
      ),
    ).toBe(true);

    for (const name of ['notices', 'pipelines']) {
      const single = (await call(`/api/v1/catalog/table/${name}`)).json.data as typeof notices;
      const listed = tables.find((t) => t.name === name)!;
      expect(single!.fields[0]).toEqual({
        name: 'ID',
        description: 'The primary key.',
        type: 'NUMBER(38,0)',
      });
      expect(single!.fields.slice(1)).toEqual(listed.fields.slice(1));
      expect(single!.description).toBe(listed.description);
    }
    expect((await call('/api/v1/catalog/table/capacity')).status).toBe(404);
  });

  it('hashes the compact JSON of each endpoint data, and changes them with the catalog', async () => {
    const { sim, call } = await start();
    const check = async () => {
      const hashes = (await call('/api/v1/catalog/hashes')).json.data as Record<string, string>;
      const served = {
        tables: (await call('/api/v1/catalog/tables')).json.data,
        notices: (await call('/api/v1/catalog/table/notices')).json.data,
        pipelines: (await call('/api/v1/catalog/table/pipelines')).json.data,
      };
      for (const [key, data] of Object.entries(served)) {
        expect(hashes[key]).toBe(sha256(JSON.stringify(data)));
      }
      return hashes;
    };
    const before = await check();
    expect(Object.keys(before)).toEqual(['tables', 'notices', 'pipelines']);
    sim.control.changeCatalog('notices', {
      name: 'PRIOR_ID',
      type: 'NUMBER(38,0)',
      description: 'Prior.',
    });
    const after = await check();
    expect(after.tables).not.toBe(before.tables);
    expect(after.notices).not.toBe(before.notices);
    expect(after.pipelines).toBe(before.pipelines);
  });
});

describe('server', () => {
  it('logs each request with its status and no credentials', async () => {
    const entries: Array<{ level: string; obj: object; msg?: string }> = [];
    const logger = {
      info: (obj: object, msg?: string) => entries.push({ level: 'info', obj, msg }),
      warn: (obj: object, msg?: string) => entries.push({ level: 'warn', obj, msg }),
    };
    const { sim, call } = await start({ logger });
    await call('/api/v1/ip/pipelines');
    sim.control.injectFault({ kind: '500' });
    await call('/api/v1/ip/notices?page=2');
    expect(entries[0]).toMatchObject({
      level: 'info',
      obj: { method: 'GET', path: '/api/v1/ip/pipelines', status: 200 },
    });
    expect(entries[1]).toMatchObject({
      level: 'warn',
      obj: { path: '/api/v1/ip/notices?page=2', status: 500, fault: '500' },
    });
    const logged = JSON.stringify(entries);
    expect(logged).not.toContain('sim-premium-key');
    expect(logged).not.toContain('Basic');
  });

  it('answers HEAD like GET without a body', async () => {
    const { sim } = await start();
    const res = await fetch(`${sim.url}/api/v1/hello`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });
});
