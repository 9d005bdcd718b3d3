import { and, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import {
  auditLog,
  deviceMetricSettings,
  globalDeviceCatalog,
  teamDeviceDataStorageSettings,
  teamSupportedDevices,
} from '../../db/schema';
import { createTestDatabase } from '../../test/test-database';
import { purgeExpiredReadings } from './retention';
import { createParticipants, readingsServiceFor, keptTotalsAndCounts } from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const DAY = 86_400_000;
const NOW = new Date('2026-11-20T12:00:00Z');

describe(`retention purge of stored readings (${MODE})`, () => {
  let database: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  // Every write, mirror delete, purge and migration keeps the totals (decision 0257).
  afterEach(async () => {
    const { kept, counted } = await keptTotalsAndCounts(database.db);
    expect(Object.keys(counted).length).toBeGreaterThan(0);
    expect(kept).toEqual(counted);
  });
  afterAll(() => database?.close());

  it('deletes expired readings and readings of metrics not enabled in both layers, drops wholly expired partitions, audits the counts', async () => {
    const db = database.db;
    const { teamId, participantIds } = await createParticipants(db, 1);
    const participantId = participantIds[0]!;
    const [device] = await db
      .insert(globalDeviceCatalog)
      .values({
        manufacturer: 'Fitbit',
        deviceType: 'TRACKER',
        deviceName: `Retention tracker ${teamId}`,
      })
      .returning();
    const [supported] = await db
      .insert(teamSupportedDevices)
      .values({ teamId, globalDeviceCatalogId: device!.id })
      .returning();
    const setting = (metricKey: string, retentionDays: number) => ({
      teamId,
      teamSupportedDeviceId: supported!.id,
      metricKey,
      metricName: metricKey,
      isEnabled: true,
      retentionDays,
    });
    // steps: both layers, 30 days; heart_rate: the administrator's layer only (the team unticked it).
    await db.insert(deviceMetricSettings).values([setting('steps', 30), setting('heart_rate', 30)]);
    await db.insert(teamDeviceDataStorageSettings).values([setting('steps', 30)]);

    const readings = readingsServiceFor(db, () => NOW);
    const row = (metricKey: string, at: Date, value: number) => ({
      participantId,
      teamId,
      brand: 'Fitbit' as const,
      metricKey,
      recordedAt: at,
      value,
      upstream: 'google-health' as const,
    });
    const oldMonth = Array.from({ length: 20 }, (_, i) =>
      row('steps', new Date(Date.UTC(2025, 8, 1 + i)), 1000 + i),
    );
    await readings.store([
      ...oldMonth,
      row('steps', new Date(NOW.getTime() - 40 * DAY), 5000),
      row('steps', new Date(NOW.getTime() - 31 * DAY), 5100),
      row('steps', new Date(NOW.getTime() - 10 * DAY), 6000),
      row('heart_rate', new Date(NOW.getTime() - 2 * DAY), 61),
      row('heart_rate', new Date(NOW.getTime() - 1 * DAY), 62),
    ]);

    const result = await purgeExpiredReadings(db, { now: NOW, runId: 'test-run', batchSize: 1 });
    expect(result.droppedPartitions).toEqual(['device_readings_p202509']);
    expect(result.deleted).toBe(20 + 2 + 2);
    const left = await readings.read({
      teamId,
      participantId,
      from: new Date('2000-01-01Z'),
      to: new Date('2030-01-01Z'),
    });
    expect(left.map((reading) => [reading.metricKey, reading.value])).toEqual([['steps', 6000]]);
    const audits = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'device_readings.purge'), eq(auditLog.teamId, teamId)));
    expect(
      audits
        .map((audit) => audit.after)
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ).toEqual([
      { metricKey: 'heart_rate', deleted: 2, run: 'test-run' },
      { metricKey: 'steps', deleted: 22, run: 'test-run' },
    ]);
    // A second run finds nothing and writes no audit row.
    expect(await purgeExpiredReadings(db, { now: NOW, runId: 'again' })).toEqual({
      deleted: 0,
      droppedPartitions: [],
      audited: 0,
    });
    const [partition] = (
      await db.execute<{ n: number }>(
        sql`select count(*)::int as n from pg_class where relname = 'device_readings_p202509'`,
      )
    ).rows;
    expect(Number(partition!.n)).toBe(0);
  });
});
