import { and, asc, desc, eq, gte, inArray, lt, type SQL } from 'drizzle-orm';
import type { ListQuery } from '@trialpulse/shared';
import type { Db } from '../../db/client';
import { deviceReadings, type DeviceBrand } from '../../db/schema';
import { defineList, selectPage, textSort } from '../../lib/paging';

/**
 * The stored readings of one participant and brand as a server-paged table
 * (/ParticipantDataPage, the raw pages). Reading is all it does; the readings service owns
 * the writes. Every query is scoped by team and participant.
 */
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

export function createDeviceDataRepository(db: Db) {
  return {
    page(scope: ReadingsListScope, query: ListQuery<keyof typeof readingsList.sortable>) {
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
  };
}

export type DeviceDataRepository = ReturnType<typeof createDeviceDataRepository>;
