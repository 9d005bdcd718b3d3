import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dexcomQueryString } from '@trialpulse/shared/device-data/device-data.schemas';
import type { Database } from '../../db/client';
import { createTestDatabase } from '../../test/test-database';
import { createProviderRegistry } from '../../modules/devices/core/provider-registry';
import type { AuthContext } from '../../modules/auth/session-context';
import { buildSyncService } from '../../modules/sync/sync.composition';
import {
  createParticipants,
  enrolledOn,
  linkForSync,
  readingsServiceFor,
  startSyncSimulators,
  type SyncSimulators,
} from '../../modules/sync/test-support';
import { createDeviceDataService } from '../../modules/device-data/device-data.service';
import { createDexcomDataCalls } from './dexcom-data.service';
import { presentDexcom } from './dexcom-data';
import { createDeviceConnectionsServiceOn, leafCount } from '../contract-support';

/**
 * Contract: a Dexcom account synced through the real sync (every Dexcom metric enabled,
 * events included) gives, from its stored readings, the same answer to the Dexcom data call
 * as the live provider for the same range, field by field: egvs, events, calibrations and
 * devices (decision 0055). The simulators stand on one frozen clock.
 */
const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const DAY = 86_400_000;
// A fixed instant: the simulator's data is deterministic per account and time.
const NOW = new Date('2025-06-11T06:00:00Z');

describe(`Dexcom: stored answer equals live answer after a real sync (${MODE})`, () => {
  let database: Database;
  let sims: SyncSimulators;

  beforeAll(async () => {
    database = await createTestDatabase();
    sims = await startSyncSimulators(NOW);
  });
  afterAll(async () => {
    await sims?.close();
    await database?.close();
  });

  it('SandboxUser4 (iPhone and touchscreen receiver, events logged): egvs, events, calibrations and devices alike', async () => {
    const db = database.db;
    const { teamId, participantIds } = await createParticipants(db, 1);
    const participantId = participantIds[0]!;
    await enrolledOn(db, participantId, new Date(NOW.getTime() - 40 * DAY));
    const connectionId = await linkForSync(db, sims, {
      teamId,
      participantId,
      brand: 'Dexcom',
      account: 'SandboxUser4',
      metrics: ['egv', 'egv_trend_rate', 'events', 'calibration'],
    });
    const sync = buildSyncService(database, {
      providers: sims.providers,
      encryptionKey: sims.encryptionKey,
      clock: sims.clock,
    });
    const run = await sync.syncConnection(connectionId, {
      kind: 'backfill',
      owner: randomUUID(),
      force: true,
    });
    expect(run.outcome).toBe('succeeded');

    const service = createDexcomDataCalls(
      createDeviceDataService({
        access: {
          requireParticipant: async (_auth, id) => ({ id, teamId }) as never,
        },
        participants: { allowedDevices: async () => [] },
        connections: createDeviceConnectionsServiceOn(db, {
          providers: createProviderRegistry(sims.providers, { clock: sims.clock }),
          clock: sims.clock,
          encryptionKey: sims.encryptionKey,
        }),
        readings: readingsServiceFor(db, () => sims.clock.now()),
        clock: sims.clock,
      }).brandData,
    );
    const auth = { userId: 0 } as AuthContext;
    const meta = { requestId: 'dexcom-contract' };
    // Four weeks: sensor sessions start (with their calibration) about every ten days.
    const start = new Date(NOW.getTime() - 33 * DAY);
    const query = dexcomQueryString({ start, end: new Date(start.getTime() + 28 * DAY) });

    const stored = await service.data(auth, participantId, query, meta);
    const live = await service.data(auth, participantId, query, meta, { allowStored: false });
    expect(stored.source).toBe('stored');
    expect(live.source).toBe('live');

    // The account has every record type in the range, from two display devices.
    expect(live.egvs!.length).toBeGreaterThan(1000);
    expect(live.events!.length).toBeGreaterThan(10);
    expect(live.calibrations!.length).toBeGreaterThan(0);
    expect(live.devices!.length).toBe(2);
    expect(
      live.devices!.every((device) => device.transmitterGeneration && device.displayDevice),
    ).toBe(true);

    expect(stored.devices).toEqual(live.devices);
    expect(stored.events).toEqual(live.events);
    expect(stored.calibrations).toEqual(live.calibrations);
    expect(stored.egvs).toEqual(live.egvs);
    expect({ ...stored, source: 'live' }).toEqual(live);
    console.info(
      `Dexcom contract: 1 call, ${live.egvs!.length} egvs, ${live.events!.length} events, ${live.calibrations!.length} calibrations, ${live.devices!.length} devices, ${leafCount(live)} fields compared`,
    );
  });

  it('rows the sync stored before (one event per row, egvs without device fields) are still read', () => {
    const at = new Date('2025-06-01T12:00:00Z');
    const answer = presentDexcom(
      [
        {
          metricKey: 'events',
          recordedAt: at,
          utcOffsetMinutes: 120,
          value: 12,
          valueJson: {
            eventType: 'insulin',
            eventSubType: 'fastActing',
            unit: 'units',
            value: '12',
          },
        },
        {
          metricKey: 'egv',
          recordedAt: at,
          utcOffsetMinutes: 120,
          value: 140,
          valueJson: { status: null, trend: 'flat' },
        },
      ],
      {
        start: new Date('2025-06-01T00:00:00Z'),
        end: new Date('2025-06-02T00:00:00Z'),
        records: ['egvs', 'events', 'devices'],
      },
      'stored',
    );
    expect(answer.events).toEqual([
      {
        systemTime: '2025-06-01T12:00:00Z',
        utcOffset: '+02:00',
        eventType: 'insulin',
        eventSubType: 'fastActing',
        value: '12',
        unit: 'units',
      },
    ]);
    expect(answer.egvs).toEqual([
      {
        systemTime: '2025-06-01T12:00:00Z',
        utcOffset: '+02:00',
        value: 140,
        status: null,
        trend: 'flat',
        trendRate: null,
      },
    ]);
    // Their device fields were never stored: unknown until a backfill over the range rewrites them.
    expect(answer.devices).toEqual([
      { transmitterGeneration: null, displayDevice: null, lastReading: '2025-06-01T12:00:00Z' },
    ]);
  });
});
