import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { globalDeviceCatalog, participantDevices, storedReadings, syncRuns } from '../../db/schema';
import { createTestDatabase } from '../../test/test-database';
import { createReadingsRepository, UPSERT_BATCH_SIZE } from './readings.repository';
import { createReadingsService, type ReadingInput, type ReadingsService } from './readings.service';
import { createSyncRepository } from './sync.repository';
import { createParticipants } from './test-support';

const NOW = new Date('2026-11-20T12:00:00Z');

describe(`stored readings (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let database: Database;
  let service: ReadingsService;
  let teamId: number;
  let participantId: number;
  let otherParticipantId: number;

  const db = () => database.db;
  const reading = (
    overrides: Partial<ReadingInput> & Pick<ReadingInput, 'metricKey' | 'recordedAt'>,
  ): ReadingInput => ({
    teamId,
    participantId,
    brand: 'Fitbit',
    upstream: 'google-health',
    value: 1,
    ...overrides,
  });
  const heartRate = (count: number, start: Date, stepSeconds = 5) =>
    Array.from({ length: count }, (_, index) =>
      reading({
        metricKey: 'heart_rate',
        recordedAt: new Date(start.getTime() + index * stepSeconds * 1000),
        value: 60 + (index % 40),
        utcOffsetMinutes: -300,
        dataSource: 'device-abc',
      }),
    );
  const countRows = async (id = participantId) =>
    (
      await db()
        .select({ n: sql<number>`count(*)::int` })
        .from(storedReadings)
        .where(eq(storedReadings.participantId, id))
    )[0]!.n;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = createReadingsService({
      readings: createReadingsRepository(database.db),
      sync: createSyncRepository(database.db),
      now: () => NOW,
    });
    const fixture = await createParticipants(database.db, 2);
    teamId = fixture.teamId;
    [participantId, otherParticipantId] = fixture.participantIds as [number, number];
  });
  afterAll(() => database?.close());

  it('is a table partitioned by month: writing creates the month partitions it needs', async () => {
    const [partitioned] = (
      await db().execute<{ strategy: string }>(sql`
        select p.partstrat as strategy from pg_partitioned_table p
        where p.partrelid = 'public.device_readings'::regclass`)
    ).rows;
    expect(partitioned).toEqual({ strategy: 'r' });

    await service.store([
      reading({ metricKey: 'steps', recordedAt: new Date('2026-09-30T00:00:00Z'), value: 9000 }),
      reading({ metricKey: 'steps', recordedAt: new Date('2026-10-01T00:00:00Z'), value: 9100 }),
    ]);
    const partitions = (
      await db().execute<{ name: string; bound: string }>(sql`
        select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
        from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'public.device_readings'::regclass order by c.relname`)
    ).rows;
    expect(partitions.map((row) => row.name)).toEqual(
      expect.arrayContaining(['device_readings_p202609', 'device_readings_p202610']),
    );
    // Each row went to its own month's partition.
    const placed = (
      await db().execute<{ partition: string; at: string }>(sql`
        select tableoid::regclass::text as partition, to_char(recorded_at at time zone 'UTC', 'YYYY-MM-DD') as at
        from device_readings where participant_id = ${participantId} order by recorded_at`)
    ).rows;
    expect(placed).toEqual([
      { partition: 'device_readings_p202609', at: '2026-09-30' },
      { partition: 'device_readings_p202610', at: '2026-10-01' },
    ]);
  });

  it('upserts idempotently: the same rows again change nothing; a changed value updates one row', async () => {
    const rows = [
      reading({
        metricKey: 'weight',
        recordedAt: new Date('2026-11-02T07:10:00Z'),
        value: 81.4,
        brand: 'Omron',
        upstream: 'omron',
        dataSource: 'HBF-702T',
      }),
      reading({
        metricKey: 'weight',
        recordedAt: new Date('2026-11-02T07:10:00Z'),
        value: 81.2,
        dataSource: 'aria-1',
      }),
      reading({
        metricKey: 'sleep_stages',
        recordedAt: new Date('2026-11-02T23:00:00Z'),
        endAt: new Date('2026-11-03T06:30:00Z'),
        value: null,
        valueJson: { deep: 60, light: 250, rem: 90, wake: 50 },
      }),
    ];
    expect(await service.store(rows)).toEqual({ inserted: 3, updated: 0, rejected: 0 });
    expect(await service.store(rows)).toEqual({ inserted: 0, updated: 0, rejected: 0 });

    const changed = rows.map((row, index) => (index === 1 ? { ...row, value: 81.3 } : row));
    expect(await service.store(changed)).toEqual({ inserted: 0, updated: 1, rejected: 0 });

    const stored = await service.read({
      teamId,
      participantId,
      metricKeys: ['weight', 'sleep_stages'],
      from: new Date('2026-11-01Z'),
      to: new Date('2026-11-04Z'),
    });
    expect(
      stored.map((row) => [row.metricKey, row.brand, row.value, row.upstream, row.dataSource]),
    ).toEqual([
      ['sleep_stages', 'Fitbit', null, 'google-health', null],
      ['weight', 'Fitbit', 81.3, 'google-health', 'aria-1'],
      ['weight', 'Omron', 81.4, 'omron', 'HBF-702T'],
    ]);
    expect(stored[0]!.valueJson).toEqual({ deep: 60, light: 250, rem: 90, wake: 50 });
    expect(stored[0]!.endAt).toEqual(new Date('2026-11-03T06:30:00Z'));
    expect(
      await service.read({
        teamId,
        participantId,
        brand: 'Omron',
        from: new Date('2026-11-01Z'),
        to: new Date('2026-11-04Z'),
      }),
    ).toHaveLength(1);
  });

  it('keeps the last of duplicate keys in one input and refuses impossible readings', async () => {
    const at = new Date('2026-11-05T00:00:00Z');
    const result = await service.store([
      reading({ metricKey: 'resting_heart_rate', recordedAt: at, value: 61 }),
      reading({ metricKey: 'resting_heart_rate', recordedAt: at, value: 59 }),
      reading({ metricKey: 'resting_heart_rate', recordedAt: new Date('1990-01-01Z'), value: 70 }),
      reading({ metricKey: 'resting_heart_rate', recordedAt: new Date('2027-03-01Z'), value: 70 }),
      reading({
        metricKey: 'resting_heart_rate',
        recordedAt: new Date('2026-11-06Z'),
        value: null,
      }),
      reading({
        metricKey: 'resting_heart_rate',
        recordedAt: new Date('2026-11-07Z'),
        value: Number.NaN,
      }),
    ]);
    expect(result).toEqual({ inserted: 1, updated: 0, rejected: 4 });
    const [row] = await service.read({
      teamId,
      participantId,
      metricKeys: ['resting_heart_rate'],
      from: new Date('2000-01-01Z'),
      to: new Date('2030-01-01Z'),
    });
    expect(row?.value).toBe(59);
  });

  it('writes more than one batch, across months, with provenance and the sync run id', async () => {
    const [device] = await db()
      .select({ id: globalDeviceCatalog.id })
      .from(globalDeviceCatalog)
      .limit(1);
    const catalogId =
      device?.id ??
      (
        await db()
          .insert(globalDeviceCatalog)
          .values({
            manufacturer: 'Fitbit',
            deviceType: 'TRACKER',
            deviceName: `Tracker ${participantId}`,
          })
          .returning()
      )[0]!.id;
    const [connection] = await db()
      .insert(participantDevices)
      .values({
        teamId,
        participantId: otherParticipantId,
        globalDeviceCatalogId: catalogId,
        upstream: 'google-health',
      })
      .returning();
    const [run] = await db()
      .insert(syncRuns)
      .values({
        teamId,
        participantDeviceId: connection!.id,
        upstream: 'google-health',
        kind: 'backfill',
        startedAt: NOW,
      })
      .returning();

    const count = UPSERT_BATCH_SIZE * 2 + 123;
    const rows = heartRate(count, new Date('2026-10-31T23:00:00Z')).map((row) => ({
      ...row,
      participantId: otherParticipantId,
    }));
    expect(await service.store(rows, { syncRunId: run!.id })).toEqual({
      inserted: count,
      updated: 0,
      rejected: 0,
    });
    expect(await countRows(otherParticipantId)).toBe(count);
    expect(await service.store(rows, { syncRunId: run!.id })).toEqual({
      inserted: 0,
      updated: 0,
      rejected: 0,
    });

    const [first] = await service.read(
      {
        teamId,
        participantId: otherParticipantId,
        from: new Date('2026-10-01Z'),
        to: new Date('2026-12-01Z'),
      },
      { limit: 1 },
    );
    expect(first).toMatchObject({
      metricKey: 'heart_rate',
      brand: 'Fitbit',
      upstream: 'google-health',
      dataSource: 'device-abc',
      syncRunId: run!.id,
      utcOffsetMinutes: -300,
      value: 60,
    });

    // Paged reading returns every row once, in key order.
    let seen = 0;
    let previous = 0;
    for await (const page of service.iterate(
      {
        teamId,
        participantId: otherParticipantId,
        metricKeys: ['heart_rate'],
        from: new Date('2026-10-01Z'),
        to: new Date('2026-12-01Z'),
      },
      { pageSize: 4_000 },
    )) {
      for (const row of page) {
        expect(row.recordedAt.getTime()).toBeGreaterThan(previous);
        previous = row.recordedAt.getTime();
      }
      seen += page.length;
    }
    expect(seen).toBe(count);

    const stats = await service.stats(teamId, otherParticipantId);
    expect(stats).toEqual([
      {
        metricKey: 'heart_rate',
        brand: 'Fitbit',
        rows: count,
        earliest: new Date('2026-10-31T23:00:00Z'),
        latest: new Date(new Date('2026-10-31T23:00:00Z').getTime() + (count - 1) * 5000),
      },
    ]);
    const latest = await service.latestByParticipant(teamId, [participantId, otherParticipantId]);
    expect(latest.find((row) => row.participantId === otherParticipantId)?.latest).toEqual(
      stats[0]!.latest,
    );
  });

  it('runs the caller`s step in the same transaction: when it fails, no reading is stored', async () => {
    const before = await countRows();
    await expect(
      service.store(heartRate(10, new Date('2026-11-10T00:00:00Z')), {
        within: async () => {
          throw new Error('cursor update failed');
        },
      }),
    ).rejects.toThrow('cursor update failed');
    expect(await countRows()).toBe(before);
  });

  it('does not read another team`s participant', async () => {
    const rows = await service.read({
      teamId: teamId + 1_000_000,
      participantId,
      from: new Date('2000-01-01Z'),
      to: new Date('2030-01-01Z'),
    });
    expect(rows).toEqual([]);
  });

  it('answers coverage from the sync cursors', async () => {
    const sync = createSyncRepository(database.db);
    const [device] = await db()
      .insert(globalDeviceCatalog)
      .values({
        manufacturer: 'Dexcom',
        deviceType: 'DEXCOM_CGM',
        deviceName: `CGM ${participantId}`,
      })
      .returning();
    const [connection] = await db()
      .insert(participantDevices)
      .values({ teamId, participantId, globalDeviceCatalogId: device!.id, upstream: 'dexcom' })
      .returning();
    const range = {
      teamId,
      participantId,
      brand: 'Dexcom' as const,
      metricKey: 'egv',
      from: new Date('2026-10-01Z'),
      to: new Date('2026-11-01Z'),
    };
    expect(await service.coverage(teamId, participantId, 'Dexcom', 'egv')).toBeNull();
    expect(await service.covers(range)).toBe(false);

    await sync.saveCursor(db(), {
      participantDeviceId: connection!.id,
      metricKey: 'egv',
      teamId,
      backfillFrom: new Date('2026-09-01Z'),
      syncedUntil: new Date('2026-10-15Z'),
      lastRunId: null,
    });
    expect(await service.coverage(teamId, participantId, 'Dexcom', 'egv')).toEqual({
      from: new Date('2026-09-01Z'),
      until: new Date('2026-10-15Z'),
    });
    expect(await service.covers(range)).toBe(false);
    expect(await service.covers({ ...range, to: new Date('2026-10-15Z') })).toBe(true);

    // The cursor only moves forward.
    await sync.saveCursor(db(), {
      participantDeviceId: connection!.id,
      metricKey: 'egv',
      teamId,
      backfillFrom: new Date('2026-08-01Z'),
      syncedUntil: new Date('2026-11-20T11:30:00Z'),
      lastRunId: null,
    });
    await sync.saveCursor(db(), {
      participantDeviceId: connection!.id,
      metricKey: 'egv',
      teamId,
      backfillFrom: new Date('2026-08-01Z'),
      syncedUntil: new Date('2026-11-01Z'),
      lastRunId: null,
    });
    expect(await service.coverage(teamId, participantId, 'Dexcom', 'egv')).toEqual({
      from: new Date('2026-09-01Z'),
      until: new Date('2026-11-20T11:30:00Z'),
    });
    // A range up to the future is covered when sync is fresh enough (within the staleness).
    expect(await service.covers({ ...range, to: new Date('2026-12-01Z') })).toBe(true);
    expect(
      await service.covers({ ...range, to: new Date('2026-12-01Z') }, { stalenessMs: 60_000 }),
    ).toBe(false);
    expect(await service.covers({ ...range, from: new Date('2026-08-15Z') })).toBe(false);
    expect(await service.covers({ ...range, brand: 'Fitbit' })).toBe(false);
  });
});
