/**
 * IANA time zones and civil (wall-clock) time: what the providers report in a user's zone and
 * the instants we store.
 */

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The civil date (yyyy-MM-dd) in `zone` at an instant. */
export function civilDateIn(zone: string, at: Date): string {
  const parts = partsAt(zone, at.getTime());
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** Minutes the zone is ahead of UTC at an instant. */
export function offsetAt(zone: string, instantMs: number): number {
  const parts = partsAt(zone, instantMs);
  const asUtc = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return Math.round((asUtc - Math.floor(instantMs / 1000) * 1000) / 60_000);
}

/** A local civil time ("2026-11-20T07:31:10.000" or date + "07:31:10") as an instant and its offset. */
export function civilToInstant(
  zone: string,
  civil: string,
): { at: Date; offsetMinutes: number } | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(
    civil,
  );
  if (!match) return null;
  const [, y, mo, d, h, mi, s = '0', ms = '0'] = match;
  const civilMs = Date.UTC(
    Number(y),
    Number(mo) - 1,
    Number(d),
    Number(h),
    Number(mi),
    Number(s),
    Number(ms.padEnd(3, '0')),
  );
  // The offset at the guess, then again at the corrected instant (changes of daylight saving time).
  let offset = offsetAt(zone, civilMs);
  offset = offsetAt(zone, civilMs - offset * 60_000);
  return { at: new Date(civilMs - offset * 60_000), offsetMinutes: offset };
}

function partsAt(zone: string, instantMs: number): Record<string, string> {
  return Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(instantMs))
      .map((part) => [part.type, part.value]),
  );
}
