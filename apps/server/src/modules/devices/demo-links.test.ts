import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { Database } from '../../db/client';
import { globalDeviceCatalog, participantDevices, participants } from '../../db/schema';
import { seedDemoData } from '../../db/seed/demo-seed';
import { loadConfig } from '../../config/env';
import {
  DEMO_DEVICE_LINKS,
  DEMO_LEGACY_PARTICIPANT,
  consentAtSimulator,
  startAllSimulators,
  type AllSimulators,
} from '@trialpulse/provider-simulators/embedded';
import { createTestDatabase } from '../../test/test-database';
import { createProviderRegistry } from './core/provider-registry';
import { providerSettingsFromConfig } from './core/provider-settings';
import { linkDemoDevices } from './demo-links';
import { simulatorEnv } from './test-support';
import { createDeviceConnectionsService } from './device-connections.service';
import { createDevicesRepository } from './devices.repository';

/** What main.ts hands linkDemoDevices from the simulators' entry point. */
const demoLinks = {
  links: DEMO_DEVICE_LINKS,
  legacyParticipantCode: DEMO_LEGACY_PARTICIPANT,
  consent: consentAtSimulator,
};

/**
 * Demo mode links demo participants through the simulators' real consent and token calls,
 * again at every start (the embedded simulators forget their grants), leaving alone what
 * staff revoked; one legacy Fitbit connection needs re-consent.
 */
let database: Database;
let sims: AllSimulators;
const key = randomBytes(32).toString('base64');
const registryFor = (running: AllSimulators) =>
  createProviderRegistry(
    providerSettingsFromConfig(
      loadConfig({
        TRIALPULSE_MODE: 'test',
        DATA_DIR: '/tmp',
        APP_SECRET: 'x'.repeat(40),
        TOKEN_ENCRYPTION_KEY: key,
        ...simulatorEnv(running),
      }),
    ),
  );

beforeAll(async () => {
  database = await createTestDatabase();
  await seedDemoData(database.db);
  sims = await startAllSimulators();
});
afterAll(async () => {
  await sims?.close();
  await database?.close();
});

const connectionOf = async (code: string) => {
  const rows = await database.db
    .select({ device: participantDevices, manufacturer: globalDeviceCatalog.manufacturer })
    .from(participantDevices)
    .innerJoin(participants, eq(participants.id, participantDevices.participantId))
    .innerJoin(
      globalDeviceCatalog,
      eq(globalDeviceCatalog.id, participantDevices.globalDeviceCatalogId),
    )
    .where(eq(participants.participantCode, code));
  return rows;
};

describe('demo device links', () => {
  it('links the demo participants, with an empty battery, an expired token and a legacy connection', async () => {
    const result = await linkDemoDevices({
      ...demoLinks,
      database,
      providers: registryFor(sims),
      encryptionKey: key,
    });
    expect(result.linked).toBe(DEMO_DEVICE_LINKS.length);

    const legacy = await connectionOf(DEMO_LEGACY_PARTICIPANT);
    expect(legacy[0]?.device).toMatchObject({
      upstream: 'fitbit-legacy',
      needsReconsent: true,
      refreshTokenEncrypted: null,
    });

    const expired = (await connectionOf('GLUCO-001')).find(
      (row) => row.manufacturer === 'Fitbit',
    )!.device;
    expect(expired.tokenExpiresAt!.getTime()).toBeLessThan(Date.now());

    // The empty battery is what the provider reports for that account.
    const repository = createDevicesRepository(database.db);
    const connections = createDeviceConnectionsService({
      repository,
      providers: registryFor(sims),
      clock: { now: () => new Date() },
      encryptionKey: key,
    });
    const sleep002 = (await connectionOf('SLEEP-002'))[0]!.device;
    const devices = await connections.devices(
      sleep002.teamId,
      sleep002.participantId,
      'Fitbit',
      { userId: null },
      { requestId: 'test' },
    );
    expect(devices.find((d) => d.deviceType === 'TRACKER')).toMatchObject({
      hasError: false,
      batteryLevel: 0,
    });
    // The expired one is refreshed on use.
    const glucoDevices = await connections.devices(
      expired.teamId,
      expired.participantId,
      'Fitbit',
      { userId: null },
      { requestId: 'test' },
    );
    expect(glucoDevices.some((d) => d.hasError)).toBe(false);
  });

  it('re-links at the next start with fresh simulators, but not what staff revoked', async () => {
    const revokedRow = (await connectionOf('WEIGHT-001'))[0]!.device;
    await database.db
      .update(participantDevices)
      .set({
        authorizationStatus: 'revoked',
        accessTokenEncrypted: null,
        refreshTokenEncrypted: null,
      })
      .where(eq(participantDevices.id, revokedRow.id));
    const before = (await connectionOf('SLEEP-001')).map((row) => row.device.accessTokenEncrypted);

    await sims.close();
    sims = await startAllSimulators();
    const result = await linkDemoDevices({
      ...demoLinks,
      database,
      providers: registryFor(sims),
      encryptionKey: key,
    });
    expect(result.linked).toBe(DEMO_DEVICE_LINKS.length - 1);
    const after = (await connectionOf('SLEEP-001')).map((row) => row.device.accessTokenEncrypted);
    expect(after).not.toEqual(before);
    expect((await connectionOf('WEIGHT-001'))[0]!.device.authorizationStatus).toBe('revoked');
  });
});
