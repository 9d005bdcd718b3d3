/** Time texts the provider answers use, built from an instant and a UTC offset. */

/** `±HH:MM` → minutes east of UTC; null when absent or not an offset. */
export function parseOffset(text: string | null | undefined): number | null {
  if (!text) return null;
  if (/^[zZ]$/.test(text)) return 0;
  const match = /([+-])(\d{2}):?(\d{2})$/.exec(text);
  if (!match) return null;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** `YYYY-MM-DDThh:mm:ssZ` (whole seconds, as the providers send UTC times). */
export function instantText(at: Date): string {
  return `${at.toISOString().slice(0, 19)}Z`;
}

/** The participant's clock, `YYYY-MM-DDThh:mm:ss`. */
export function localText(at: Date, offsetMinutes: number): string {
  return new Date(at.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 19);
}

/** A provider's UTC time without a zone (`2024-01-10T14:05:12`) as an instant. */
export function utcInstant(text: string): Date {
  return new Date(/[zZ]|[+-]\d\d:\d\d$/.test(text) ? text : `${text}Z`);
}
