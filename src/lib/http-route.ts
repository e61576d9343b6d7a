/**
 * An endpoint that a part of pipewatch serves on the HTTP port and answers itself (the Slack
 * app's `POST /slack/events`, the unsubscribe pages). The part that owns the endpoint
 * declares it; the server (`http/server.ts`) only routes to it, so no part has to import
 * the server to be reachable over HTTP.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UnverifiedBodies } from './request-body.js';

export interface HttpRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** The exact path, `/slack/events`; with `prefix`, a path beginning and ending with `/`. */
  path: string;
  /**
   * `path` is a prefix: `/unsubscribe/` takes `/unsubscribe/<anything>`. A route on the
   * exact path goes first, then the longest prefix.
   */
  prefix?: boolean;
  /** Answers the request; a body not yet trusted is read within `bodies` (`readBody`). */
  handle(req: IncomingMessage, res: ServerResponse, bodies: UnverifiedBodies): Promise<void>;
}
