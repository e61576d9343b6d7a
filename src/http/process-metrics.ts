/**
 * The daemon's process metrics (`pipewatch_process_*`, `pipewatch_nodejs_*`): CPU,
 * memory, heap and heap spaces, file descriptors, start time, GC, active resources,
 * Node's version and event-loop lag, each read from Node's public API (or Linux's
 * `/proc`) when `/metrics` is scraped.
 *
 * Written here rather than taken from prom-client's `collectDefaultMetrics` because that
 * function registers two things pipewatch must not have, with no option to leave them
 * out: an event-loop monitor (`monitorEventLoopDelay` at 10 ms) that woke the idle daemon
 * a hundred times a second, nearly all of its idle CPU; and gauges named `…_total`
 * (`nodejs_active_handles_total`), which break Prometheus's naming rules. Leaving them
 * out meant loading prom-client's collectors one module at a time by their paths inside
 * the package, which its next reorganisation would break. The names and meanings are
 * those of prom-client and the Prometheus client libraries' process collectors, so the
 * usual dashboards read them; what changed is that the active handles and requests
 * (read by prom-client through Node's private `process._getActiveHandles`) are gone, and
 * `pipewatch_nodejs_active_resources{type}`, from the public `getActiveResourcesInfo`,
 * says the same.
 *
 * Nothing here runs between scrapes but the GC histogram, which is told of each
 * collection by V8 (a `PerformanceObserver`), with no timer of its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

const PREFIX = 'pipewatch_';

/** When this process started, in Unix seconds: fixed for its life. */
const STARTED_S = Math.round(Date.now() / 1000 - process.uptime());

/** GC kinds as V8 reports them, by the names prom-client gives them. */
const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/** `/proc/self/status` fields in bytes (its figures are kB), or nothing off Linux. */
function procStatus(): Partial<Record<'VmSize' | 'VmData', number>> {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const out: Partial<Record<'VmSize' | 'VmData', number>> = {};
    for (const field of ['VmSize', 'VmData'] as const) {
      const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
      if (kb !== undefined) out[field] = Number(kb) * 1024;
    }
    return out;
  } catch {
    return {};
  }
}

/** The soft limit on open files, from `/proc/self/limits`, or undefined off Linux. */
function maxFds(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return line?.[1] === undefined ? undefined : Number(line[1]);
  } catch {
    return undefined;
  }
}

/** Open file descriptors, from `/proc/self/fd` (less the one reading it), or undefined. */
function openFds(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length - 1;
  } catch {
    return undefined;
  }
}

/** A gauge set from `read()` at each scrape; no series when it reads undefined. */
function gaugeOf(
  registry: Registry,
  name: string,
  help: string,
  read: () => number | undefined,
): void {
  new Gauge({
    name: PREFIX + name,
    help,
    registers: [registry],
    collect() {
      const value = read();
      if (value === undefined) this.reset();
      else this.set(value);
    },
  });
}

/** A counter whose running total Node keeps (`read()`), copied at each scrape. */
function counterOf(registry: Registry, name: string, help: string, read: () => number): void {
  new Counter({
    name: PREFIX + name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

/** CPU time, as microseconds from `process.cpuUsage`, in seconds. */
function cpuSeconds(part: 'user' | 'system' | 'both'): number {
  const { user, system } = process.cpuUsage();
  return (part === 'user' ? user : part === 'system' ? system : user + system) / 1e6;
}

function registerProcess(registry: Registry): void {
  counterOf(registry, 'process_cpu_user_seconds_total', 'User CPU time spent in seconds.', () =>
    cpuSeconds('user'),
  );
  counterOf(registry, 'process_cpu_system_seconds_total', 'System CPU time spent in seconds.', () =>
    cpuSeconds('system'),
  );
  counterOf(
    registry,
    'process_cpu_seconds_total',
    'Total user and system CPU time spent in seconds.',
    () => cpuSeconds('both'),
  );
  gaugeOf(
    registry,
    'process_start_time_seconds',
    'Start time of the process since unix epoch in seconds.',
    () => STARTED_S,
  );
  gaugeOf(registry, 'process_resident_memory_bytes', 'Resident memory size in bytes.', () =>
    process.memoryUsage.rss(),
  );
  gaugeOf(
    registry,
    'process_virtual_memory_bytes',
    'Virtual memory size in bytes.',
    () => procStatus().VmSize,
  );
  gaugeOf(registry, 'process_heap_bytes', 'Process heap size in bytes.', () => procStatus().VmData);
  gaugeOf(registry, 'process_open_fds', 'Number of open file descriptors.', openFds);
  const max = maxFds();
  gaugeOf(registry, 'process_max_fds', 'Maximum number of open file descriptors.', () => max);
}

function registerHeap(registry: Registry): void {
  gaugeOf(
    registry,
    'nodejs_heap_size_total_bytes',
    'Process heap size from Node.js in bytes.',
    () => process.memoryUsage().heapTotal,
  );
  gaugeOf(
    registry,
    'nodejs_heap_size_used_bytes',
    'Process heap size used from Node.js in bytes.',
    () => process.memoryUsage().heapUsed,
  );
  gaugeOf(
    registry,
    'nodejs_external_memory_bytes',
    'Node.js external memory size in bytes.',
    () => process.memoryUsage().external,
  );
  const spaces = {
    total: new Gauge({
      name: `${PREFIX}nodejs_heap_space_size_total_bytes`,
      help: 'Process heap space size total from Node.js in bytes.',
      labelNames: ['space'] as const,
      registers: [registry],
      collect() {
        for (const s of getHeapSpaceStatistics()) {
          const space = s.space_name.replace(/_space$/, '');
          spaces.total.set({ space }, s.space_size);
          spaces.used.set({ space }, s.space_used_size);
          spaces.available.set({ space }, s.space_available_size);
        }
      },
    }),
    used: new Gauge({
      name: `${PREFIX}nodejs_heap_space_size_used_bytes`,
      help: 'Process heap space size used from Node.js in bytes.',
      labelNames: ['space'] as const,
      registers: [registry],
    }),
    available: new Gauge({
      name: `${PREFIX}nodejs_heap_space_size_available_bytes`,
      help: 'Process heap space size available from Node.js in bytes.',
      labelNames: ['space'] as const,
      registers: [registry],
    }),
  };
}

function registerRuntime(registry: Registry): void {
  const gc = new Histogram({
    name: `${PREFIX}nodejs_gc_duration_seconds`,
    help: 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
    labelNames: ['kind'] as const,
    buckets: [0.001, 0.01, 0.1, 1, 2, 5],
    registers: [registry],
  });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { detail } = entry as { detail?: { kind?: number } };
      const kind = GC_KINDS[detail?.kind ?? -1] ?? 'unknown';
      gc.observe({ kind }, entry.duration / 1000);
    }
  }).observe({ entryTypes: ['gc'] });

  new Gauge({
    name: `${PREFIX}nodejs_active_resources`,
    help: 'Number of active resources that are currently keeping the event loop alive, grouped by async resource type.',
    labelNames: ['type'] as const,
    registers: [registry],
    collect() {
      const counts = new Map<string, number>();
      for (const type of process.getActiveResourcesInfo())
        counts.set(type, (counts.get(type) ?? 0) + 1);
      this.reset();
      for (const [type, n] of counts) this.set({ type }, n);
    },
  });

  const [major = '', minor = '', patch = ''] = process.versions.node.split('.');
  new Gauge({
    name: `${PREFIX}nodejs_version_info`,
    help: 'Node.js version info.',
    labelNames: ['version', 'major', 'minor', 'patch'] as const,
    registers: [registry],
  }).set({ version: process.version, major, minor, patch }, 1);

  const lag = new Gauge({
    name: `${PREFIX}nodejs_eventloop_lag_seconds`,
    help: 'Lag of event loop in seconds, measured when scraped.',
    registers: [registry],
    // How long an immediate callback waits for the loop, awaited at each scrape, so the
    // figure is this scrape's, not the one before.
    collect: async () => {
      const start = process.hrtime.bigint();
      await new Promise((resolve) => setImmediate(resolve));
      lag.set(Number(process.hrtime.bigint() - start) / 1e9);
    },
  });
}

/** Registers every process metric in `registry`. */
export function registerProcessMetrics(registry: Registry): void {
  registerProcess(registry);
  registerHeap(registry);
  registerRuntime(registry);
}
