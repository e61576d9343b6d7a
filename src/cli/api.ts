/**
 * `pipewatch api …`: calls one endpoint of the configured API and prints the result as a
 * table, or the normalised `data` as JSON with `--json`. For trying credentials, looking
 * at what the API sends, and scripting.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { withOpenEnd } from '../domain/open-ended.js';
import { quantity } from '../lib/quantity.js';
import { counted } from '../lib/words.js';
import type { NoticePage } from '../upstream/client.js';
import {
  CAPACITY_CYCLES,
  type Capacity,
  type Notice,
  type Pipeline,
  type TableDescription,
} from '../upstream/schemas.js';
import type { ApiTarget } from './api-target.js';
import type { CliContext } from './context.js';
import { clip, StreamedJsonArray, StreamedTable, table, toJson, when } from './format.js';

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError('must be a whole number of at least 1');
  return Number(value);
}

function gasDay(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    throw new InvalidArgumentError('must be a date YYYY-MM-DD');
  }
  return value;
}

const jsonOption = () => new Option('--json', 'print the normalised data as JSON');

/** Runs one call against the configured API, closing it afterwards. */
type RunWithApi = (fn: (target: ApiTarget) => Promise<void>) => Promise<void>;

/** The options of `api notices`. */
interface NoticesOptions {
  pipeline?: string;
  page: number;
  all?: boolean;
  maxPages?: number;
  json?: boolean;
}

/** Registers `api` and its subcommands. */
export function apiCommand(ctx: CliContext): Command {
  const api = new Command('api').description('call the configured API and print the result');
  const run: RunWithApi = async (fn) => {
    const { openApi } = await import('./api-target.js');
    const target = await openApi(ctx);
    try {
      await fn(target);
    } finally {
      await target.close();
    }
  };
  addCatalogCommands(api, ctx, run);
  addNoticesCommand(api, ctx, run);
  addCapacityCommands(api, ctx, run);
  return api;
}

/** `api hashes`, `api tables`, `api table <name>`, `api hello`: the API's catalog and greeting. */
function addCatalogCommands(api: Command, ctx: CliContext, run: RunWithApi): void {
  api
    .command('hashes')
    .description('SHA-256 of each catalog endpoint (detects structure changes)')
    .addOption(jsonOption())
    .action((opts: { json?: boolean }) =>
      run(async ({ client }) => {
        const { data } = await client.catalogHashes();
        if (opts.json) return ctx.out(toJson(data));
        ctx.out(table(['endpoint', 'sha256'], Object.entries(data)));
      }),
    );

  api
    .command('tables')
    .description('descriptions of the catalog tables')
    .addOption(jsonOption())
    .action((opts: { json?: boolean }) =>
      run(async ({ client }) => {
        const { data } = await client.catalogTables();
        if (opts.json) return ctx.out(toJson(data));
        ctx.out(data.map(describeTable).join('\n\n'));
      }),
    );

  api
    .command('table')
    .description('description of one catalog table')
    .argument('<name>', 'notices or pipelines', (v) => {
      if (v !== 'notices' && v !== 'pipelines')
        throw new InvalidArgumentError('must be notices or pipelines');
      return v;
    })
    .addOption(jsonOption())
    .action((name: 'notices' | 'pipelines', opts: { json?: boolean }) =>
      run(async ({ client }) => {
        const { data } = await client.catalogTable(name);
        ctx.out(opts.json ? toJson(data) : describeTable(data));
      }),
    );

  api
    .command('hello')
    .description('GET /hello, or POST /hello with --name')
    .option('--name <name>', 'name to send (uses POST)')
    .addOption(jsonOption())
    .action((opts: { name?: string; json?: boolean }) =>
      run(async ({ client }) => {
        const { data } = await client.hello(opts.name);
        ctx.out(opts.json ? toJson(data) : `Hello, ${data.name}`);
      }),
    );
}

/** `api notices`: one page, or every page with `--all`, printed as each arrives. */
function addNoticesCommand(api: Command, ctx: CliContext, run: RunWithApi): void {
  api
    .command('notices')
    .description('notices, latest first')
    .option('--pipeline <slug>', 'only this pipeline')
    .option('--page <n>', 'page to load', positiveInt, 1)
    .option('--all', 'walk every page from --page on')
    .option('--max-pages <n>', 'with --all, stop after this many pages', positiveInt)
    .addOption(jsonOption())
    .action((opts: NoticesOptions) => run((target) => printNotices(ctx, target, opts)));
}

/**
 * Prints the pages `opts` asks for, each as it arrives (`--all | head` shows the first
 * page at once, and the walk stops when the reader goes), then a count of what was shown.
 */
async function printNotices(
  ctx: CliContext,
  { client }: ApiTarget,
  opts: NoticesOptions,
): Promise<void> {
  const rows = opts.json
    ? new StreamedJsonArray((line) => ctx.out(line))
    : new StreamedTable((line) => ctx.out(line), NOTICE_COLUMNS, ['right']);
  const seen = {
    pages: 0,
    notices: 0,
    skipped: 0,
    last: undefined as NoticePage['pagination'] | undefined,
  };
  const show = (page: NoticePage) => {
    if (rows instanceof StreamedJsonArray) for (const n of page.data) rows.add(withOpenEnd(n));
    else rows.add(page.data.map(noticeRow));
    seen.pages++;
    seen.notices += page.data.length;
    seen.skipped += page.skipped.length;
    seen.last = page.pagination;
  };
  if (opts.all) {
    for await (const page of client.noticePages({
      pipeline: opts.pipeline,
      firstPage: opts.page,
      ...(opts.maxPages ? { maxPages: opts.maxPages } : {}),
      signal: ctx.signal,
    })) {
      show(page);
    }
  } else {
    show(await client.notices({ pipeline: opts.pipeline, page: opts.page }));
  }
  rows.end();
  if (opts.json) return;
  const { last } = seen;
  const of = last?.total_pages != null ? ` of ${last.total_pages}` : '';
  const pageText = opts.all ? counted(seen.pages, 'page') : `page ${opts.page}${of}`;
  const total = last?.total_results != null ? `, ${last.total_results} in all` : '';
  const skipped = seen.skipped ? `, ${seen.skipped} malformed skipped` : '';
  ctx.out(`\n${counted(seen.notices, 'notice')} (${pageText}${total})${skipped}`);
}

/** `api capacity <slug>` and `api pipelines`. */
function addCapacityCommands(api: Command, ctx: CliContext, run: RunWithApi): void {
  api
    .command('capacity')
    .description('operationally available capacity of one pipeline')
    .argument('<slug>', 'pipeline slug')
    .addOption(
      new Option('--cycle <cycle>', 'nomination cycle').choices(CAPACITY_CYCLES).default('latest'),
    )
    .option('--gas-day <date>', 'gas day YYYY-MM-DD', gasDay)
    .addOption(jsonOption())
    .action(
      (
        slug: string,
        opts: { cycle: (typeof CAPACITY_CYCLES)[number]; gasDay?: string; json?: boolean },
      ) =>
        run(async ({ client }) => {
          const { data } = await client.capacity(slug, { cycle: opts.cycle, gasDay: opts.gasDay });
          ctx.out(opts.json ? toJson(data) : capacityTable(data));
        }),
    );

  api
    .command('pipelines')
    .description('tracked pipelines')
    .addOption(jsonOption())
    .action((opts: { json?: boolean }) =>
      run(async ({ client }) => {
        const { data } = await client.pipelines();
        ctx.out(opts.json ? toJson(data) : pipelineTable(data));
      }),
    );
}

const NOTICE_COLUMNS = [
  'id',
  'posted',
  'pipeline',
  'type',
  'category',
  'status',
  'response by',
  'subject',
];

function noticeRow(n: Notice): string[] {
  return [
    String(n.id),
    when(n.posted_at),
    n.pipeline_slug,
    clip(n.type, 22),
    clip(n.category, 12),
    clip(n.status, 10),
    when(n.response_at),
    clip(n.subject, 60),
  ];
}

function capacityTable({ cycle, locations }: Capacity): string {
  const head = `${cycle.pipeline_name || cycle.pipeline_slug} · cycle ${cycle.cycle} · gas day ${cycle.gas_day} · ${counted(locations.length, 'location')} · updated ${when(cycle.service_updated_at)}`;
  const rows = locations.map((l) => [
    clip(l.location, 28),
    l.identifier,
    l.zone,
    l.flow,
    l.qti,
    quantity(l.dc),
    quantity(l.opc),
    quantity(l.tsq),
    quantity(l.oac),
    l.it,
    l.all,
  ]);
  const right = [
    'left',
    'left',
    'left',
    'left',
    'left',
    'right',
    'right',
    'right',
    'right',
  ] as const;
  return `${head}\n\n${table(['location', 'id', 'zone', 'flow', 'qti', 'dc', 'opc', 'tsq', 'oac', 'it', 'all'], rows, [...right])}`;
}

function pipelineTable(pipelines: Pipeline[]): string {
  return table(
    ['id', 'slug', 'name', 'tsp id', 'tsp name'],
    pipelines.map((p) => [String(p.id), p.slug, clip(p.name, 44), p.tsp_id, clip(p.tsp_name, 40)]),
    ['right'],
  );
}

function describeTable(t: TableDescription): string {
  const fields = table(
    ['field', 'type', 'description'],
    t.fields.map((f) => [
      f.name === t.primary_key ? `${f.name} (pk)` : f.name,
      f.type,
      clip(f.description, 70),
    ]),
  );
  return `${t.name}: ${t.description}\n\n${fields}`;
}
