import { randomBytes } from 'node:crypto';
import { and, eq, gte, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFitbitResourcePath } from '@trialpulse/shared/device-data/fitbit-resource-path';
import type { FitbitHeartIntradayResponse } from '@trialpulse/shared/device-data/fitbit-shapes';
import { loadConfig } from '../../config/env';
import type { Database } from '../../db/client';
import {
  storedReadings,
  globalDeviceCatalog,
  participantDevices,
  participants,
} from '../../db/schema';
import { seedDemoData } from '../../db/seed/demo-seed';
import { civilDateIn } from '../../lib/civil-time';
import {
  DEMO_DEVICE_LINKS,
  DEMO_LEGACY_PARTICIPANT,
  consentAtSimulator,
  demoFitbitMinuteHeartRate,
  demoFitbitTimeZone,
  startAllSimulators,
  type AllSimulators,
} from '@trialpulse/provider-simulators/embedded';
import { runDateFrom } from '../../test/date-from';
import { createTestDatabase } from '../../test/test-database';
import { createProviderRegistry } from '../devices/core/provider-registry';
import { providerSettingsFromConfig } from '../devices/core/provider-settings';
import { linkDemoDevices } from '../devices/demo-links';
import { simulatorEnv } from '../devices/test-support';
import { heartIntradayFamily } from '../../providers/fitbit/fitbit-heart.translator';
import { buildSyncService } from '../sync/sync.composition';
import { readingsServiceFor } from '../sync/test-support';
import { seedDemoReadings } from './demo-readings';

/**
 * The demo seed and the sync's backfill (decisions 0053, 0105, 0112): nothing is seeded where
 * a linked connection's backfill will store the account's own readings, so nothing is counted
 * twice, except GLUCO-001's 1-second day, which the one-day view draws from the store: the
 * sync's samples land on its instants and the mirror keeps the seconds no sync stored.
 */
let database: Database;
let sims: AllSimulators;
let restoreDate: (() => void) | undefined;
const key = randomBytes(32).toString('base64');

beforeAll(async () => {
  // A day on which the simulated GLUCO-001 wore the tracker the day before: the assertion
  // that the sync's samples land on the seeded seconds needs synced samples on that day, and
  // on the real calendar some days have none (it failed on every run of 2026-11-29 UTC).
  restoreDate = runDateFrom('2026-11-28T14:00:00Z');
  database = await createTestDatabase();
  await seedDemoData(database.db);
  sims = await startAllSimulators();
});
afterAll(async () => {
  await sims?.close();
  await database?.close();
  restoreDate?.();
});

describe('demo readings', () => {
  it("GLUCO-001's 1-second day is still whole after the sync and answered from the store; nothing else is seeded where a linked connection's backfill reaches", async () => {
    const config = loadConfig({
      TRIALPULSE_MODE: 'test',
      DATA_DIR: '/tmp',
      APP_SECRET: 'x'.repeat(40),
      TOKEN_ENCRYPTION_KEY: key,
      ...simulatorEnv(sims),
    });
    const providers = providerSettingsFromConfig(config);
    await linkDemoDevices({
      links: DEMO_DEVICE_LINKS,
      legacyParticipantCode: DEMO_LEGACY_PARTICIPANT,
      consent: consentAtSimulator,
      database,
      providers: createProviderRegistry(providers),
      encryptionKey: key,
    });
    const readings = readingsServiceFor(database.db);
    // As main.ts seeds demo mode: the readings after the links, with the accounts' clocks.
    await seedDemoReadings({
      db: database.db,
      readings,
      fitbitTimeZoneOf: demoFitbitTimeZone,
      fitbitMinuteHeartRateOf: demoFitbitMinuteHeartRate,
      syncBackfillDays: 60,
    });
    // A linked connection's backfill (60 days) fetches the days the seed covers: the only
    // seeded readings of the linked participants are GLUCO-001's 1-second day.
    const seeded = await database.db
      .select({
        code: participants.participantCode,
        brand: storedReadings.brand,
        metricKey: storedReadings.metricKey,
        n: sql<number>`count(*)::int`,
      })
      .from(storedReadings)
      .innerJoin(participants, eq(participants.id, storedReadings.participantId))
      .where(
        inArray(participants.participantCode, [
          'SLEEP-001',
          'SLEEP-002',
          'GLUCO-001',
          'WEIGHT-001',
        ]),
      )
      .groupBy(participants.participantCode, storedReadings.brand, storedReadings.metricKey);
    expect(seeded.map((row) => ({ ...row, n: Number(row.n) }))).toEqual([
      { code: 'GLUCO-001', brand: 'Fitbit', metricKey: 'heart_rate', n: 86_400 },
    ]);
    // No seeded reading claims a provider (decision 0186): all of them are the demo's own.
    const seededUpstreams = await database.db
      .select({ upstream: storedReadings.upstream, n: sql<number>`count(*)::int` })
      .from(storedReadings)
      .groupBy(storedReadings.upstream);
    expect(seededUpstreams.map((row) => ({ ...row, n: Number(row.n) }))).toEqual([
      { upstream: 'demo', n: 86_400 },
    ]);

    // The background sync's backfill (three days) fetches the same day from the simulator.
    const [connection] = await database.db
      .select({
        id: participantDevices.id,
        teamId: participants.teamId,
        participantId: participants.id,
      })
      .from(participantDevices)
      .innerJoin(participants, eq(participants.id, participantDevices.participantId))
      .innerJoin(
        globalDeviceCatalog,
        eq(globalDeviceCatalog.id, participantDevices.globalDeviceCatalogId),
      )
      .where(
        and(
          eq(participants.participantCode, 'GLUCO-001'),
          eq(globalDeviceCatalog.manufacturer, 'Fitbit'),
        ),
      );
    const sync = buildSyncService(database, { providers, encryptionKey: key, maxBackfillDays: 3 });
    const run = await sync.syncConnection(connection!.id, {
      kind: 'backfill',
      owner: 'demo-readings-test',
      streams: ['heart-rate', 'daily-resting-heart-rate'],
      force: true,
    });
    expect(run.outcome).toBe('succeeded');
    expect(run.updated).toBeGreaterThan(0); // the sync's samples landed on seeded instants
    // The mirror (decision 0112) deletes only what a sync stored: the seeded seconds stay.
    expect(run.deleted).toBe(0);

    // Yesterday on the participant's (its Fitbit account's) clock, as the one-day page asks.
    const zone = demoFitbitTimeZone('GLUCO-001')!;
    const today = civilDateIn(zone, new Date());
    const day = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const parsed = parseFitbitResourcePath(`activities/heart/date/${day}/1d/1sec.json`, today);
    if (!parsed.ok || parsed.request.kind !== 'heart-intraday') throw new Error('bad path');
    const wanted = heartIntradayFamily.stored!(parsed.request)!;
    const scope = {
      teamId: connection!.teamId,
      participantId: connection!.participantId,
      brand: 'Fitbit' as const,
    };
    for (const metricKey of wanted.metricKeys) {
      expect(
        await readings.covers({ ...scope, metricKey, from: wanted.from, to: wanted.to }),
        metricKey,
      ).toBe(true);
    }
    const answer = heartIntradayFamily.fromStore!(
      parsed.request,
      await readings.read({
        ...scope,
        metricKeys: wanted.metricKeys,
        from: wanted.from,
        to: wanted.to,
      }),
    ) as FitbitHeartIntradayResponse;
    const dataset = answer['activities-heart-intraday'].dataset;
    // The whole day, each second once: the account's samples on their seconds, the seed's
    // values on the others.
    expect(dataset).toHaveLength(86_400);
    expect(dataset[0]!.time).toBe('00:00:00');
    expect(dataset.at(-1)!.time).toBe('23:59:59');
    // Smooth from second to second (decision 0172): the seeded seconds follow the account's
    // own heart rate, so the synced samples among them do not make a sawtooth (it read
    // 63 → 125 → 66 → 127 when the seed drew its own day).
    const steps = dataset
      .slice(1)
      .map((point, index) => Math.abs(point.value - dataset[index]!.value))
      .sort((a, b) => a - b);
    expect(steps.at(-1)!).toBeLessThanOrEqual(10);
    expect(steps[Math.floor(steps.length * 0.99)]!).toBeLessThanOrEqual(4);
    const inDay = and(
      eq(storedReadings.participantId, connection!.participantId),
      eq(storedReadings.metricKey, 'heart_rate'),
      gte(storedReadings.recordedAt, wanted.from),
      lt(storedReadings.recordedAt, wanted.to),
    );
    const [synced] = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(storedReadings)
      .where(and(inDay, isNotNull(storedReadings.syncRunId)));
    expect(Number(synced!.n)).toBeGreaterThan(1000);
    // After the sync, a row is the provider's exactly when a sync stored it.
    const provenance = await database.db
      .select({
        synced: sql<boolean>`${storedReadings.syncRunId} is not null`,
        upstream: storedReadings.upstream,
        n: sql<number>`count(*)::int`,
      })
      .from(storedReadings)
      .where(inDay)
      .groupBy(sql`1`, storedReadings.upstream);
    expect(
      provenance
        .map(({ synced, upstream }) => ({ synced, upstream }))
        .sort((a, b) => Number(a.synced) - Number(b.synced)),
    ).toEqual([
      { synced: false, upstream: 'demo' },
      { synced: true, upstream: 'google-health' },
    ]);
  });
});
