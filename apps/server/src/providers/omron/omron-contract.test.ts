import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { createOmronDataCalls } from './omron-data.service';
import { createDeviceConnectionsServiceOn, leafCount } from '../contract-support';

/**
 * Contract: an Omron account synced through the real sync (blood pressure and weight) gives,
 * from its stored readings, the same answer to the Omron data call as the live provider for
 * the same query, field by field (decision 0055). The sync's clock stands still; the Omron
 * simulator's follows the wall clock (its ID tokens are checked against real time), so the
 * queries read ascending from a start weeks back with a limit: readings near "now" never count.
 */
const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const DAY = 86_400_000;

describe(`Omron: stored answer equals live answer after a real sync (${MODE})`, () => {
  let database: Database;
  let sims: SyncSimulators;

  beforeAll(async () => {
    database = await createTestDatabase();
    sims = await startSyncSimulators();
  });
  afterAll(async () => {
    await sims?.close();
    await database?.close();
  });

  it('Maria Lopez (BP monitor and scale): blood pressure and weight alike', async () => {
    const db = database.db;
    const now = sims.clock.now();
    const { teamId, participantIds } = await createParticipants(db, 1);
    const participantId = participantIds[0]!;
    await enrolledOn(db, participantId, new Date(now.getTime() - 40 * DAY));
    const connectionId = await linkForSync(db, sims, {
      teamId,
      participantId,
      brand: 'Omron',
      account: '5f1c2a9e-6d4b-4c1f-9a8e-1b2c3d4e5f01',
      metrics: ['systolic', 'diastolic', 'pulse', 'weight', 'body_fat', 'bmi'],
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

    const service = createOmronDataCalls(
      createDeviceDataService({
        access: { requireParticipant: async (_auth, id) => ({ id, teamId }) as never },
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
    const meta = { requestId: 'omron-contract' };
    const since = new Date(now.getTime() - 30 * DAY).toISOString().slice(0, 10);
    let fields = 0;
    for (const queryStr of ['bloodpressure', 'weight'] as const) {
      const query = { queryStr, since, sortOrder: 'asc', limit: 20 } as const;
      const stored = await service.data(auth, participantId, query, meta);
      const live = await service.data(auth, participantId, query, meta, {
        allowStored: false,
      });
      expect([stored.source, live.source]).toEqual(['stored', 'live']);
      const list = queryStr === 'bloodpressure' ? 'bloodPressure' : 'weight';
      expect(live[list]!.length, queryStr).toBeGreaterThan(5);
      expect(stored[list], queryStr).toEqual(live[list]);
      fields += leafCount(live[list]);
    }
    console.info(`Omron contract: 2 calls, ${fields} fields compared`);
  });
});
