/**
 * What a thrown value says, whatever was thrown: JavaScript lets any value be thrown, and
 * a library's `throw 'text'` or a rejected promise with an object must still give a
 * readable line, not a cast that reads `undefined`.
 */

/** The message of an `Error` (or of anything thrown with a text `message`), or the value as text. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error)
    if (typeof error.message === 'string') return error.message;
  return String(error);
}

/** What a thrown `Error` was caused by (`fetch failed` by `ECONNREFUSED`), if anything. */
export function errorCause(error: unknown): unknown {
  return error instanceof Error ? error.cause : undefined;
}

/** The `name` of a thrown value (`AbortError`), if it has one. */
export function errorName(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object' || !('name' in error)) return undefined;
  return typeof error.name === 'string' ? error.name : undefined;
}

/** The system error code of a failed file or network call (`ENOENT`), if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object' || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
