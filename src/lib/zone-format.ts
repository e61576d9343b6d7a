/**
 * Date formats by time zone, each built once: building an `Intl.DateTimeFormat` costs
 * far more than using one, and pipewatch formats many instants in a few zones.
 */

/** What a format shows; the zone is given per call. */
export type ZoneFormatOptions = Omit<Intl.DateTimeFormatOptions, 'timeZone'>;

/**
 * The `en-US` format with `options` for any zone, built on first use and kept. An
 * unknown zone throws a RangeError, as `Intl.DateTimeFormat` does, and is not kept.
 */
export function zoneFormat(options: ZoneFormatOptions): (zone: string) => Intl.DateTimeFormat {
  const formats = new Map<string, Intl.DateTimeFormat>();
  return (zone) => {
    let format = formats.get(zone);
    if (!format) {
      format = new Intl.DateTimeFormat('en-US', { ...options, timeZone: zone });
      formats.set(zone, format);
    }
    return format;
  };
}
