/**
 * The `fetch` pipewatch gives Slack's Web API clients, those that send alerts and the
 * app's alike.
 */
import { fetch as undiciFetch } from 'undici';

/**
 * `fetch` that gives up on a request, its answer's body included, `ms` after it
 * started, or when the caller's own signal aborts.
 *
 * - The clients' `timeout` aborts through `AbortSignal.timeout`, whose timer goes away
 *   with the signal once nothing else holds it: a server that sends its answer a byte at
 *   a time could then keep the request open for good. The controller here is held by its
 *   timer until it fires.
 * - It is undici's `fetch`, from the undici the upstream client and webhooks use.
 */
export function fetchWithin(ms: number): typeof fetch {
  return (input, init) => {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException(`no complete answer within ${ms}ms`, 'TimeoutError')),
      ms,
    );
    timer.unref();
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
