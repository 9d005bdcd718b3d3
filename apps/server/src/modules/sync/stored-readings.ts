import { sql, type SQL } from 'drizzle-orm';

/**
 * The one relation readers read (issue 29, decisions 0220 and 0255): the view
 * `stored_readings`, rows of `device_readings` ∪ the unnested points of
 * `device_reading_chunks`, in the rows' columns. A reader of a time window bounds it with
 * `storedReadingsWithin`: besides the instant, the chunk's own period (`chunk_from`, its
 * start, and `chunk_to`, its last point), so the chunks outside the window are neither
 * read nor unnested, while on the rows' side the same bounds are bounds on `recorded_at`
 * (the partition key: the planner still drops the other months' partitions).
 */

/** The longest period a chunk spans (heart rate: a UTC hour; minute streams: a UTC day). */
export const CHUNK_PERIOD_MAX_MS = 86_400_000;

const instant = (date: Date) => `'${date.toISOString()}'::timestamptz`;

/**
 * `alias.recorded_at` in [from, to) on `stored_readings`, with the chunk bounds that let the
 * planner skip other chunks and partitions. `from` and `to` are instants, passed as
 * constants: interval arithmetic on timestamptz is only stable and would prune at run time.
 */
export function storedReadingsWithin(alias: string, from: Date, to: Date): SQL {
  return sql.raw(storedReadingsWithinText(alias, from, to));
}

/** The same bounds as SQL text (COPY takes no parameters; `readings-csv.ts`). */
export function storedReadingsWithinText(alias: string, from: Date, to: Date): string {
  return `${storedReadingsFromText(alias, from)} and ${storedReadingsBeforeText(alias, to)}`;
}

/** Only the lower bound: readings at or after `from` (a page's recent window). */
export function storedReadingsFrom(alias: string, from: Date): SQL {
  return sql.raw(storedReadingsFromText(alias, from));
}

/** Only the upper bound: readings before `to`. */
export function storedReadingsBefore(alias: string, to: Date): SQL {
  return sql.raw(storedReadingsBeforeText(alias, to));
}

function storedReadingsFromText(a: string, from: Date): string {
  const earliestChunk = new Date(from.getTime() - CHUNK_PERIOD_MAX_MS);
  return `${a}.recorded_at >= ${instant(from)} and ${a}.chunk_from > ${instant(earliestChunk)} and ${a}.chunk_to >= ${instant(from)}`;
}

function storedReadingsBeforeText(a: string, to: Date): string {
  return `${a}.recorded_at < ${instant(to)} and ${a}.chunk_from < ${instant(to)}`;
}

/**
 * The same for bounds that are SQL expressions (a lateral probe's per-key range, a
 * correlated subquery's instant): the planner then bounds each probe at run time.
 */
export function storedReadingsWithinSql(alias: string, from: SQL, to: SQL): SQL {
  const a = sql.raw(alias);
  return sql`${a}.recorded_at >= ${from} and ${a}.recorded_at < ${to} and ${a}.chunk_from > (${from}) - ${sql.raw(`interval '${CHUNK_PERIOD_MAX_MS} milliseconds'`)} and ${a}.chunk_from < ${to} and ${a}.chunk_to >= ${from}`;
}

/** `alias.recorded_at = at` on `stored_readings`, only the chunk that can hold `at` unnested. */
export function storedReadingAt(alias: string, at: SQL): SQL {
  const a = sql.raw(alias);
  return sql`${a}.recorded_at = ${at} and ${a}.chunk_from <= ${at} and ${a}.chunk_from > (${at}) - ${sql.raw(`interval '${CHUNK_PERIOD_MAX_MS} milliseconds'`)} and ${a}.chunk_to >= ${at}`;
}
