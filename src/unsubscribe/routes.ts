/**
 * The unsubscribe links of alert email, served on the daemon's HTTP port under
 * `/unsubscribe/<token>`. A `GET` (or `HEAD`) shows what the link stops and a button,
 * and changes nothing: mail scanners and link previews fetch links on their own. A
 * `POST` whose body says `List-Unsubscribe=One-Click` (RFC 8058; the button's, or a mail
 * client's one-click request; see `one-click.ts`) stops it. Any other POST (empty, other
 * fields: a scanner's probe) changes nothing and gets a 400 page with the button. The
 * link itself says what to stop: a token that does not verify gets a 400 page before
 * any of the body is read, and a body is read only up to a small limit. Pages are plain
 * HTML (see `unsubscribe-page.ts`), never an error trace.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../lib/clock.js';
import { errorMessage } from '../lib/error-text.js';
import type { HttpRoute } from '../lib/http-route.js';
import type { Logger } from '../lib/logger.js';
import {
  BUSY_RETRY_AFTER_S,
  readBody,
  turnedAway,
  type UnverifiedBodies,
} from '../lib/request-body.js';
import { toUtcIso } from '../lib/time.js';
import type { AsyncStore } from '../store/async-store.js';
import { UNSUBSCRIBE_PATH, verifyToken } from './links.js';
import { saysOneClick } from './one-click.js';
import {
  alreadyPage,
  busyPage,
  confirmPage,
  donePage,
  failedPage,
  invalidPage,
  notAskedPage,
  type Page,
  sendPage,
  tooLargePage,
} from './page.js';
import { type UnsubscribeScope, unsubscribe, unsubscribeState } from './silences.js';

export { unsubscribeKey } from './silences.js';

/** Largest request body read: a one-click POST is 26 bytes, the page's form as many. */
export const MAX_UNSUBSCRIBE_BODY = 4096;

/** What the routes need: the store of silences, the time, a log, and the links' key. */
export interface UnsubscribeRouteDeps {
  store: AsyncStore;
  clock: Clock;
  logger: Logger;
  /** The key the links are signed with (`unsubscribeKey`). */
  key: string;
}

/**
 * The headers a page goes with besides its own: a request whose body was left unread
 * has its connection closed; one turned away for want of room is told when to come back.
 */
function extraHeaders(req: IncomingMessage, page: Page): Record<string, string> {
  if (page.status === 503)
    return { connection: 'close', 'retry-after': String(BUSY_RETRY_AFTER_S) };
  if (page.status === 413 || (req.method === 'POST' && !req.complete))
    return { connection: 'close' };
  return {};
}

/** The token of a request: what follows `/unsubscribe/` in its path. */
function tokenOf(req: IncomingMessage): string {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  return path.startsWith(UNSUBSCRIBE_PATH) ? path.slice(UNSUBSCRIBE_PATH.length) : '';
}

/** `email:a@example.com rules=x,sub-3`, for log lines. */
function described(scope: UnsubscribeScope): string {
  const rules = scope.rules === 'all' ? 'every rule' : `rules=${scope.rules.join(',')}`;
  return `email:${scope.addresses.join(',')} ${rules}`;
}

/** The `GET` and `POST` routes of `/unsubscribe/<token>`, for the daemon's HTTP server. */
export function unsubscribeRoutes(deps: UnsubscribeRouteDeps): HttpRoute[] {
  const log = deps.logger.child({ route: 'unsubscribe' });
  const verified = (req: IncomingMessage, method: string): UnsubscribeScope | undefined => {
    const scope = verifyToken(tokenOf(req), deps.key);
    if (!scope) log.info({ method }, 'unsubscribe: a link that is not valid was refused');
    return scope;
  };
  /** Answers with what `answer` makes, or the failure page when it throws. */
  const guarded =
    (answer: (req: IncomingMessage, bodies: UnverifiedBodies) => Promise<Page>) =>
    async (req: IncomingMessage, res: ServerResponse, bodies: UnverifiedBodies) => {
      let page: Page;
      try {
        page = await answer(req, bodies);
      } catch (error) {
        log.error({ err: error }, `unsubscribe: failed: ${errorMessage(error)}`);
        page = failedPage();
      }
      if (res.headersSent) return;
      sendPage(res, page, extraHeaders(req, page));
    };

  const show = async (req: IncomingMessage): Promise<Page> => {
    const scope = verified(req, 'GET');
    if (!scope) return invalidPage();
    const state = await unsubscribeState(deps.store, scope, toUtcIso(deps.clock.now()));
    if (state.remaining !== 'all' && state.remaining.length === 0)
      return alreadyPage(
        scope,
        state.holding.map((s) => s.id),
      );
    return confirmPage(scope);
  };

  const act = async (req: IncomingMessage, bodies: UnverifiedBodies): Promise<Page> => {
    // The link says what to stop: one that does not verify is refused before its body
    // is read.
    const scope = verified(req, 'POST');
    if (!scope) return invalidPage();
    const read = await readBody(req, MAX_UNSUBSCRIBE_BODY, bodies);
    if (read === 'too-large') return tooLargePage(MAX_UNSUBSCRIBE_BODY);
    if (read === 'busy') {
      if (bodies.worthLogging()) log.warn(turnedAway(`${UNSUBSCRIBE_PATH}…`, bodies));
      return busyPage();
    }
    // A client gone before its request was whole asked for nothing.
    if (read === 'aborted') return invalidPage();
    if (!saysOneClick(read.raw, String(req.headers['content-type'] ?? ''))) {
      log.info('unsubscribe: a POST without List-Unsubscribe=One-Click changed nothing');
      return notAskedPage(scope);
    }
    const result = await unsubscribe(deps.store, scope, toUtcIso(deps.clock.now()));
    if (result.created !== undefined)
      log.info(
        { target: result.target, silence: result.created },
        `unsubscribe: ${described(scope)} stopped by silence ${result.created}`,
      );
    return donePage(scope, result.silences);
  };

  return [
    { method: 'GET', path: UNSUBSCRIBE_PATH, prefix: true, handle: guarded(show) },
    { method: 'POST', path: UNSUBSCRIBE_PATH, prefix: true, handle: guarded(act) },
  ];
}
