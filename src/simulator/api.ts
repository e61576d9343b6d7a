/**
 * Routing of /api/v1: the public catalog and hello endpoints, and the private endpoints
 * behind HTTP Basic. Unknown paths get 404 and known paths with the wrong method 405,
 * both in the error envelope.
 */
import { capacityResponse } from './api-capacity.js';
import { noticesResponse } from './api-notices.js';
import type { SimulatorCore } from './core.js';
import { type ApiResponse, basicCredentials, failure, success, unauthorized } from './http.js';
import type { SimulatorUser } from './options.js';
import { PIPELINES, wirePipeline } from './pipelines.js';

/** A request to the API, already read. */
export interface ApiRequest {
  method: string;
  /** The path after /api/v1, without a trailing slash. */
  path: string;
  params: URLSearchParams;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
  origin: string;
}

type Handler = (core: SimulatorCore, req: ApiRequest, user: SimulatorUser) => ApiResponse;

interface Route {
  pattern: RegExp;
  private: boolean;
  methods: Record<string, Handler>;
}

const routes: Route[] = [
  {
    pattern: /^\/catalog\/hashes$/,
    private: false,
    methods: { GET: (core) => success(core.catalog.hashes()) },
  },
  {
    pattern: /^\/catalog\/tables$/,
    private: false,
    methods: { GET: (core) => success(core.catalog.tables()) },
  },
  {
    pattern: /^\/catalog\/table\/(notices|pipelines)$/,
    private: false,
    methods: {
      GET: (core, req) =>
        success(core.catalog.table(req.path.endsWith('notices') ? 'notices' : 'pipelines')),
    },
  },
  {
    pattern: /^\/hello$/,
    private: false,
    methods: {
      GET: () => success({ name: 'World' }),
      POST: (_core, req) => success({ name: submittedName(req) ?? 'World' }),
    },
  },
  {
    pattern: /^\/ip\/notices$/,
    private: true,
    methods: {
      GET: (core, req, user) =>
        noticesResponse(core, { user, params: req.params, origin: req.origin }),
    },
  },
  {
    pattern: /^\/ip\/pipelines$/,
    private: true,
    methods: {
      GET: (core, _req, user) =>
        success(
          PIPELINES.map((p) => wirePipeline(p, core.opts.startAt)),
          { total_results: PIPELINES.length },
          user.plan === 'demo' ? [core.demoMessage] : [],
        ),
    },
  },
  {
    pattern: /^\/ip\/capacity\/([^/]+)$/,
    private: true,
    methods: {
      GET: (core, req, user) => capacityResponse(core, user, capacitySlug(req.path), req.params),
    },
  },
];

const ANONYMOUS: SimulatorUser = { username: '', key: '', plan: 'premium' };

/** Answers one /api/v1 request. */
export function routeApi(core: SimulatorCore, req: ApiRequest): ApiResponse {
  const route = routes.find((r) => r.pattern.test(req.path));
  if (!route) return failure(404, `Not found: /api/v1${req.path}`);
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const handler = route.methods[method];
  if (!handler) {
    const allowed = Object.keys(route.methods);
    if (allowed.includes('GET')) allowed.push('HEAD');
    return failure(405, `Method ${req.method} is not allowed for /api/v1${req.path}.`, [], {
      Allow: allowed.join(', '),
    });
  }
  if (!route.private) return handler(core, req, ANONYMOUS);
  const credentials = basicCredentials(req.authorization);
  const user = credentials && core.user(credentials.username, credentials.key);
  if (!user) return unauthorized();
  return handler(core, req, user);
}

function capacitySlug(path: string): string {
  const raw = path.slice('/ip/capacity/'.length);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The `name` of a POST /hello body: form-encoded as the spec says, or JSON. */
function submittedName(req: ApiRequest): string | undefined {
  if (req.contentType?.toLowerCase().startsWith('application/json')) {
    try {
      const parsed: unknown = JSON.parse(req.body);
      const name = (parsed as { name?: unknown } | null)?.name;
      return typeof name === 'string' ? name : undefined;
    } catch {
      return undefined;
    }
  }
  return new URLSearchParams(req.body).get('name') ?? undefined;
}
