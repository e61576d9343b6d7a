/**
 * A platform's request to an app's endpoint as it goes on the wire, for the fakes of
 * Slack and Discord that sign them: what a test may spoil after signing (headers, the
 * body, sending it chunked), and sending it (again, byte for byte, for a replay) with the
 * answer read whole.
 */

/** A request as it went on the wire: enough to send it again byte for byte. */
export interface SentRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Sent chunked, without `Content-Length`. */
  chunked?: boolean;
}

/** How a signed request is spoiled on its way out; nothing by default. */
export interface WireTamper {
  /** Change the body after signing. */
  alterBody?: (body: string) => string;
  /** Headers to set or, with undefined, to leave out. */
  headers?: Record<string, string | undefined>;
  /** Send the body chunked (`Transfer-Encoding: chunked`), declaring no length. */
  chunked?: boolean;
}

/** An answer as it came back. */
export interface WireAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The request that got this answer: send it again to replay it. */
  request: SentRequest;
}

/** The request of a signed `body` with its `headers`, spoiled as `tamper` says. */
export function onTheWire(
  url: string,
  headers: Record<string, string>,
  body: string,
  tamper: WireTamper,
): SentRequest {
  const sentHeaders = { ...headers };
  for (const [name, value] of Object.entries(tamper.headers ?? {})) {
    if (value === undefined) delete sentHeaders[name.toLowerCase()];
    else sentHeaders[name.toLowerCase()] = value;
  }
  const sent = tamper.alterBody ? tamper.alterBody(body) : body;
  return { url, headers: sentHeaders, body: sent, ...(tamper.chunked ? { chunked: true } : {}) };
}

/** A body as a stream of 1 KiB pieces, which fetch sends chunked. */
function inChunks(body: string): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(body);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + 1024));
      at += 1024;
    },
  });
}

/** POSTs a request as it is and reads the whole answer. */
export async function sendOnTheWire(request: SentRequest): Promise<WireAnswer> {
  const res = await fetch(request.url, {
    method: 'POST',
    headers: request.headers,
    ...(request.chunked
      ? { body: inChunks(request.body), duplex: 'half' as const }
      : { body: request.body }),
  });
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    body: await res.text(),
    request,
  };
}
