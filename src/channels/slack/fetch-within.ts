/**
 * The `fetch` pipewatch gives Slack's Web API clients, those that send alerts and the
 * app's alike.
 */
import { fetch as undiciFetch } from 'undici';
import type { Clock } from '../../lib/clock.js';

/**
 * `fetch` that gives up on a request, its answer's body included, `ms` after it
 * started, or when the caller's own signal aborts.
 *
 * - The clients' `timeout` aborts through `AbortSignal.timeout`, whose timer goes away
 *   with the signal once nothing else holds it: a server that sends its answer a byte at
 *   a time could then keep the request open for good. The controller here is held by its
 *   timer until it fires.
 * - It is undici's `fetch`, from the undici the upstream client and webhooks use.
 * - The limit runs in real time, on a timer that does not keep the process alive (every
 *   call's runs to its end); on `clock` when a test gives one, to end a call at its
 *   limit whatever the speed of the machine.
 */
export function fetchWithin(ms: number, clock?: Clock): typeof fetch {
  return (input, init) => {
    const controller = new AbortController();
    const expire = () =>
      controller.abort(new DOMException(`no complete answer within ${ms}ms`, 'TimeoutError'));
    if (clock) clock.sleep(ms).then(expire, () => undefined);
    else setTimeout(expire, ms).unref();
    const signal = init?.signal
      ? AbortSignal.any([init.signal, controller.signal])
      : controller.signal;
    // The DOM's and undici's types of the same Fetch standard differ only in details.
    return undiciFetch(
      input as never,
      { ...init, signal } as never,
    ) as unknown as Promise<Response>;
  };
}
