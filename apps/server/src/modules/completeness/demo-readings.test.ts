import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFitbitResourcePath } from '@trialpulse/shared/device-data/fitbit-resource-path';
import type { FitbitHeartIntradayResponse } from '@trialpulse/shared/device-data/fitbit-shapes';
import { loadConfig } from '../../config/env';
import type { Database } from '../../db/client';
import { globalDeviceCatalog, participantDevices, participants } from '../../db/schema';
import { seedDemoData } from '../../db/seed/demo-seed';
import { civilDateIn } from '../../lib/civil-time';
import {
  DEMO_DEVICE_LINKS,
  DEMO_LEGACY_PARTICIPANT,
  consentAtSimulator,
  demoFitbitTimeZone,
  startAllSimulators,
  type AllSimulators,
} from '../../simulators/embedded';
import { createTestDatabase } from '../../test/test-database';
import { createProviderRegistry } from '../devices/core/provider-registry';
import { providerSettingsFromConfig } from '../devices/core/provider-settings';
import { linkDemoDevices } from '../devices/demo-links';
import { simulatorEnv } from '../devices/test-support';
import { heartIntradayFamily } from '../device-data/fitbit/fitbit-heart.translator';
import { buildSyncService } from '../sync/sync.composition';
import { readingsServiceFor } from '../sync/test-support';
import { seedDemoReadings } from './demo-readings';

/**
 * The demo's whole day of 1-second heart rate (GLUCO-001, decisions 0068 and 0105) is what
 * the one-day view draws from the store: it must still be a whole day on the participant's
 * clock after the sync's backfill has fetched the same day from the linked account.
 */
let database: Database;
let sims: AllSimulators;
const key = randomBytes(32).toString('base64');

beforeAll(async () => {
  database = await createTestDatabase();
  await seedDemoData(database.db);
  sims = await startAllSimulators();
}, 60_000);
afterAll(async () => {
  await sims?.close();
  await database?.close();
});

describe('demo readings', () => {
  it("GLUCO-001's 1-second day is still whole after the sync and is answered from the store", async () => {
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
    });

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
    expect(dataset).toHaveLength(86_400);
    expect(dataset[0]!.time).toBe('00:00:00');
    expect(dataset.at(-1)!.time).toBe('23:59:59');
  }, 240_000);
});
