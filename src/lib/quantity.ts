/**
 * Capacity quantities (Dth) as people read them, the same in every alert and every
 * command: `1,234,567`, and `-` for one the pipeline did not post.
 */

/** `1,234,567` (US thousands separators, whatever the host's locale); `-` when unknown. */
export function quantity(value: number | null): string {
  return value === null ? '-' : value.toLocaleString('en-US');
}
