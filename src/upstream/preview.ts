/**
 * A glimpse of a value the API sent, for error messages and logs. Whatever the value (a
 * string of megabytes, arrays nested a hundred thousand deep, an object of a million
 * keys), the glimpse costs no more than it prints: it never serialises the whole value
 * and never recurses deeper than its own length.
 */

/** Longest glimpse, in characters, unless the caller asks for another. */
export const PREVIEW_CHARS = 40;

/** JSON-like text of `value`, at most `max` characters, ending in `…` when cut. */
export function preview(value: unknown, max: number = PREVIEW_CHARS): string {
  let out = '';
  /** Appends; false once the glimpse is full, which stops every walk above it. */
  const emit = (text: string): boolean => {
    out += text;
    return out.length <= max;
  };
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') return emit(JSON.stringify(v.length > max ? v.slice(0, max) : v));
    if (v === null || typeof v === 'number' || typeof v === 'boolean') return emit(String(v));
    if (typeof v !== 'object') return emit(String(typeof v));
    if (Array.isArray(v)) {
      if (!emit('[')) return false;
      for (let i = 0; i < v.length; i++) {
        if ((i > 0 && !emit(',')) || !walk(v[i])) return false;
      }
      return emit(']');
    }
    if (!emit('{')) return false;
    let first = true;
    for (const key in v) {
      if (!Object.hasOwn(v, key)) continue;
      if (!first && !emit(',')) return false;
      first = false;
      const name = JSON.stringify(key.length > max ? key.slice(0, max) : key);
      if (!emit(`${name}:`) || !walk((v as Record<string, unknown>)[key])) return false;
    }
    return emit('}');
  };
  walk(value);
  return out.length > max ? `${out.slice(0, max)}…` : out;
}
