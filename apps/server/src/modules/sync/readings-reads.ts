import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { ListQuery } from '@trialpulse/shared';
import type { Db } from '../../db/client';
import { participants, storedReadings, type DeviceBrand } from '../../db/schema';
import { defineList, selectPage, textSort } from '../../lib/paging';
import { storedReadingsBefore, storedReadingsFrom } from './stored-readings';
import { keysOf, PAGE_COLUMNS, positionedPage, scopeConditions } from './readings-positioned-page';

/**
 * Reads of stored readings that other modules need beyond the readings repository's, published
 * through the readings service (issue #27: owners publish the reads others need): the paged
 * table of one participant and brand (/ParticipantDataPage, the raw pages) and the team's count
 * of a metric (the retention page). Every query is scoped by team.
 */

/** The stored readings of one participant and brand as a server-paged table. */
export const readingsList = defineList({
  sortable: {
    recordedAt: storedReadings.recordedAt,
    metricKey: textSort(storedReadings.metricKey),
    value: storedReadings.value,
  },
  searchable: [storedReadings.metricKey, storedReadings.dataSource, storedReadings.value],
  // Newest first, the table's natural order; the key's remaining columns keep pages stable.
  defaultOrder: [desc(storedReadings.recordedAt), asc(storedReadings.metricKey)],
});

export type ReadingsListScope = {
  teamId: number;
  participantId: number;
  brand: DeviceBrand;
  metricKeys?: readonly string[];
  from?: Date;
  to?: Date;
};

export type ReadingsListQuery = ListQuery<keyof typeof readingsList.sortable>;

/**
 * Where the page's window starts: the earliest first reading of the newest summary rows
 * (participant, scope's metrics) that together count at least `need` readings, or of all of
 * them when they count fewer; null without any. The summary counts every brand, so the
 * window may hold fewer of the page's brand than needed: the caller then reads the whole
 * history. Reads summary rows only.
 */
async function windowStart(db: Db, scope: ReadingsListScope, need: number): Promise<Date | null> {
  const metrics =
    scope.metricKeys && scope.metricKeys.length > 0
      ? sql`and metric_key in (${sql.join(
          scope.metricKeys.map((key) => sql`${key}`),
          sql`, `,
        )})`
      : sql``;
  const result = await db.execute<{ since: string | null }>(sql`
    select min(first_at) as since from (
      select first_at, sum(readings) over (order by last_at desc, first_at desc, metric_key, day) - readings as before
        from device_reading_days
       where participant_id = ${scope.participantId} and team_id = ${scope.teamId} ${metrics}
         ${scope.to ? sql`and first_at < ${scope.to.toISOString()}::timestamptz` : sql``}
    ) days
     where before < ${need}`);
  const since = result.rows[0]?.since;
  return since ? new Date(since) : null;
}

/**
 * The readings of a scope without time bounds, from the totals the database keeps per
 * participant × metric × brand (decision 0257): one index probe per metric, however long
 * the history. Equal to a count over `stored_readings` of the same scope.
 */
function scopeTotal(scope: ReadingsListScope): SQL {
  return sql`select coalesce(sum(readings), 0)::bigint as n from device_reading_totals
    where ${keysOf(scope)}`;
}

export function createReadingsReads(db: Db) {
  return {
    /**
     * One page of the participant's readings of a brand, newest first, with provenance. A
     * page in newest-first order is first read from a window of recent days only (decision
     * 0201): the day summary says from which instant on the participant has at least the
     * rows up to the page's end; if that window holds a whole page, no older row can be in
     * it (the order starts with the time), else the page is read over the whole history.
     * The total always counts the whole scope. Without a time range or filter, a page in
     * time order (either way) is located by position instead (decision 0256): from the
     * nearer end, by the chunks' sizes, reading only the chunks that hold it.
     */
    async page(scope: ReadingsListScope, query: ReadingsListQuery) {
      const timeOrder = !query.sort || query.sort.by === 'recordedAt';
      if (query.page && timeOrder && query.filter === '' && !scope.from && !scope.to) {
        const counted = await db.execute<{ n: number }>(scopeTotal(scope));
        const total = Number(counted.rows[0]?.n ?? 0);
        if (query.page.index * query.page.size >= total) return { rows: [], total };
        const newestFirst = !query.sort || query.sort.desc;
        const page = await positionedPage(db, scope, query.page, newestFirst, total);
        if (page) return page;
      }
      const conditions: SQL[] = scopeConditions(scope);
      if (scope.from) conditions.push(storedReadingsFrom('stored_readings', scope.from));
      if (scope.to) conditions.push(storedReadingsBefore('stored_readings', scope.to));
      const read = (window: SQL | undefined) =>
        selectPage(
          query,
          readingsList,
          (filter, total) =>
            db
              .select({ ...PAGE_COLUMNS, total })
              .from(storedReadings)
              .where(and(...conditions, window, filter))
              .$dynamic(),
          // The total over the whole scope, never the window.
          {
            countFrom: () =>
              db
                .select({ one: sql`1` })
                .from(storedReadings)
                .where(and(...conditions))
                .$dynamic(),
            ...(!scope.from && !scope.to && { maintainedTotal: () => scopeTotal(scope) }),
          },
        );
      const newestFirst = !query.sort || (query.sort.by === 'recordedAt' && query.sort.desc);
      if (query.page && newestFirst && query.filter === '') {
        const need = (query.page.index + 1) * query.page.size;
        const since = await windowStart(db, scope, need);
        if (since) {
          const page = await read(storedReadingsFrom('stored_readings', since));
          if (page.rows.length === query.page.size) return page;
        }
      }
      return read(undefined);
    },

    /** Which of these participants (of the team) have stored readings of the brand. */
    async participantsWithReadings(
      teamId: number,
      brand: DeviceBrand,
      participantIds: readonly number[],
    ): Promise<Set<number>> {
      if (participantIds.length === 0) return new Set();
      const rows = await db
        .select({ id: participants.id })
        .from(participants)
        .where(
          and(
            eq(participants.teamId, teamId),
            inArray(participants.id, [...participantIds]),
            // Rows or chunks, each by its own key; a chunk is never unnested to be found.
            sql`(EXISTS (SELECT 1 FROM device_readings r WHERE r.participant_id = ${participants.id} AND r.team_id = ${teamId} AND r.brand = ${brand})
              OR EXISTS (SELECT 1 FROM device_reading_chunks c WHERE c.participant_id = ${participants.id} AND c.team_id = ${teamId} AND c.brand = ${brand}))`,
          ),
        );
      return new Set(rows.map((row) => row.id));
    },

    /**
     * The team's stored readings of a metric from devices of `brands` (what a purge of that
     * metric would delete), through the team's participants so the readings' key
     * (participant, team, metric, …) serves it.
     */
    async countOfTeamMetric(teamId: number, metricKey: string, brands: readonly DeviceBrand[]) {
      if (brands.length === 0) return 0;
      // The kept totals of the team's participants (decision 0257).
      const result = await db.execute<{ n: number }>(sql`
        select coalesce(sum(readings), 0)::bigint as n from device_reading_totals
         where participant_id in (select id from participants where team_id = ${teamId})
           and team_id = ${teamId} and metric_key = ${metricKey}
           and brand in (${sql.join(
             brands.map((brand) => sql`${brand}::device_brand`),
             sql`, `,
           )})`);
      return Number(result.rows[0]?.n ?? 0);
    },
  };
}
