import { z } from 'zod';

/**
 * Calendar dates and date-times in requests (decision 0127): a date must exist in the
 * calendar (no 2026-02-30) and lie in the years 1900–2100, so no impossible or absurd date
 * reaches the database (PostgreSQL has no year 0000), date arithmetic (9999-12-31 + 1 day)
 * or a provider. Web forms and server routes share these rules and messages.
 */
export const DATE_LIMITS = { minYear: 1900, maxYear: 2100 } as const;

export const DATE_MESSAGES = {
  date: `Enter a valid date (YYYY-MM-DD) from ${DATE_LIMITS.minYear} to ${DATE_LIMITS.maxYear}.`,
  dateTime: `Enter a valid date and time (ISO 8601 with a time zone) from ${DATE_LIMITS.minYear} to ${DATE_LIMITS.maxYear}.`,
} as const;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `text` is a `YYYY-MM-DD` date that exists in the calendar, in 1900–2100. */
export function isCalendarDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < DATE_LIMITS.minYear || year > DATE_LIMITS.maxYear) return false;
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const TIME = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?$/;

/**
 * Whether `text` is `YYYY-MM-DD` or `YYYY-MM-DDThh:mm[:ss[.fff]]` with an optional `Z` or
 * `±hh:mm` offset, whose date is a calendar date in 1900–2100 (`isCalendarDate`).
 */
export function isCalendarDateTime(
  text: string,
  options: { offset: 'required' | 'optional' | 'none' } = { offset: 'optional' },
): boolean {
  const at = text.indexOf('T');
  if (at === -1) return options.offset !== 'required' && isCalendarDate(text);
  if (!isCalendarDate(text.slice(0, at))) return false;
  const zone = /(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/.exec(text);
  if (zone && options.offset === 'none') return false;
  if (!zone && options.offset === 'required') return false;
  return TIME.test(text.slice(at + 1, zone ? text.length - zone[0].length : text.length));
}

/** A `YYYY-MM-DD` calendar date in 1900–2100, refused with `message`. */
export const calendarDateSchema = (message: string = DATE_MESSAGES.date) =>
  z.string({ error: message }).refine(isCalendarDate, message);

/** An ISO 8601 date-time with a time zone (`Z` or `±hh:mm`) in 1900–2100. */
export const calendarDateTimeSchema = (message: string = DATE_MESSAGES.dateTime) =>
  z
    .string({ error: message })
    .refine(
      (text) => text.includes('T') && isCalendarDateTime(text, { offset: 'required' }),
      message,
    );
