import { and, asc, count, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { ListQuery } from '@trialpulse/shared';
import type { Db } from '../../db/client';
import { deviceReadings, participants, type DeviceBrand } from '../../db/schema';
import { defineList, selectPage, textSort } from '../../lib/paging';

/**
 * Reads of stored readings that other modules need beyond the readings repository's, published
 * through the readings service (issue #27: owners publish the reads others need): the paged
 * table of one participant and brand (/ParticipantDataPage, the raw pages) and the team's count
 * of a metric (the retention page). Every query is scoped by team.
 */

/** The stored readings of one participant and brand as a server-paged table. */
export const readingsList = defineList({
  sortable: {
    recordedAt: deviceReadings.recordedAt,
    metricKey: textSort(deviceReadings.metricKey),
    value: deviceReadings.value,
  },
  searchable: [deviceReadings.metricKey, deviceReadings.dataSource, deviceReadings.value],
  // Newest first, the table's natural order; the key's remaining columns keep pages stable.
  defaultOrder: [desc(deviceReadings.recordedAt), asc(deviceReadings.metricKey)],
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

export function createReadingsReads(db: Db) {
  return {
    /** One page of the participant's readings of a brand, newest first, with provenance. */
    page(scope: ReadingsListScope, query: ReadingsListQuery) {
      const conditions: SQL[] = [
        eq(deviceReadings.participantId, scope.participantId),
        eq(deviceReadings.teamId, scope.teamId),
        eq(deviceReadings.brand, scope.brand),
      ];
      if (scope.from) conditions.push(gte(deviceReadings.recordedAt, scope.from));
      if (scope.to) conditions.push(lt(deviceReadings.recordedAt, scope.to));
      if (scope.metricKeys && scope.metricKeys.length > 0) {
        conditions.push(inArray(deviceReadings.metricKey, [...scope.metricKeys]));
      }
      return selectPage(query, readingsList, (filter, total) =>
        db
          .select({
            metricKey: deviceReadings.metricKey,
            recordedAt: deviceReadings.recordedAt,
            endAt: deviceReadings.endAt,
            utcOffsetMinutes: deviceReadings.utcOffsetMinutes,
            value: deviceReadings.value,
            valueJson: deviceReadings.valueJson,
            brand: deviceReadings.brand,
            upstream: deviceReadings.upstream,
            dataSource: deviceReadings.dataSource,
            syncRunId: deviceReadings.syncRunId,
            syncedAt: deviceReadings.syncedAt,
            total,
          })
          .from(deviceReadings)
          .where(and(...conditions, filter))
          .$dynamic(),
      );
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
            sql`EXISTS (SELECT 1 FROM ${deviceReadings} r WHERE r.participant_id = ${participants.id} AND r.team_id = ${teamId} AND r.brand = ${brand})`,
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
      const teamParticipants = db
        .select({ id: participants.id })
        .from(participants)
        .where(eq(participants.teamId, teamId));
      const [row] = await db
        .select({ n: count() })
        .from(deviceReadings)
        .where(
          and(
            inArray(deviceReadings.participantId, teamParticipants),
            eq(deviceReadings.teamId, teamId),
            eq(deviceReadings.metricKey, metricKey),
            inArray(deviceReadings.brand, [...brands]),
          ),
        );
      return Number(row?.n ?? 0);
    },
  };
}
