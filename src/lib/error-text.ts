/**
 * What a thrown value says, whatever was thrown: JavaScript lets any value be thrown, and
 * a library's `throw 'text'` or a rejected promise with an object must still give a
 * readable line, not a cast that reads `undefined`.
 */

/** The message of an `Error`, or the thrown value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The system error code of a failed file or network call (`ENOENT`), if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object' || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
