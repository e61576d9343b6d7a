/**
 * Numbers as people read them, the same in every alert and every command: `1,234,567`,
 * and for capacity quantities (Dth) `-` for one the pipeline did not post.
 */

/**
 * `1,234,567.125`: `value` as `toLocaleString('en-US')` writes it, whatever the host's
 * locale, and without ICU: its first use costs a process some 7 MiB of resident memory,
 * which a daemon that has only counted characters should not carry. As ICU does, it
 * starts from the shortest decimal that reads back as `value` (what `String` writes), keeps
 * at most three decimals, rounding a half away from zero, and groups the thousands.
 */
export function grouped(value: number): string {
  const magnitude = Math.abs(value);
  if (!Number.isFinite(value) || magnitude >= 1e21) return value.toLocaleString('en-US');
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  // Under half a thousandth rounds to 0; `String` would write the smallest in exponent form.
  if (magnitude < 0.0005) return `${sign}0`;
  const [whole = '0', decimals = ''] = String(magnitude).split('.');
  let digits = whole + decimals.slice(0, 3).padEnd(3, '0');
  if ((decimals[3] ?? '0') >= '5') digits = String(BigInt(digits) + 1n).padStart(4, '0');
  const fraction = digits.slice(-3).replace(/0+$/, '');
  const thousands = digits.slice(0, -3).replace(/\B(?=(\d{3})+$)/g, ',');
  return `${sign}${thousands}${fraction ? `.${fraction}` : ''}`;
}

/** `1,234,567`, as `grouped` writes it; `-` when unknown. */
export function quantity(value: number | null): string {
  return value === null ? '-' : grouped(value);
}
