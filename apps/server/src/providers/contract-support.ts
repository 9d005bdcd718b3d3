import { randomUUID } from 'node:crypto';
import type { Database } from '../db/client';
import type { DeviceBrand } from '../db/schema';
import type { AuthContext } from '../modules/auth/session-context';
import type { Db } from '../db/client';
import type { Clock } from '../lib/clock';
import {
  createProviderRegistry,
  type ProviderRegistry,
} from '../modules/devices/core/provider-registry';
import {
  createDeviceConnectionsService,
  type DeviceConnectionsService,
} from '../modules/devices/device-connections.service';
import { createDevicesRepository } from '../modules/devices/devices.repository';
import { buildSyncService } from '../modules/sync/sync.composition';
import {
  createParticipants,
  enrolledOn,
  linkForSync,
  readingsServiceFor,
  type SyncSimulators,
} from '../modules/sync/test-support';
import { createDeviceDataService } from '../modules/device-data/device-data.service';
import { createFitbitDataService } from './fitbit/fitbit-data.service';
import { createDexcomDataCalls } from './dexcom/dexcom-data.service';
import { createOmronDataCalls } from './omron/omron-data.service';

const DAY = 86_400_000;

/** The token lifecycle on a database, for the data services the contract tests call directly. */
export function createDeviceConnectionsServiceOn(
  db: Db,
  deps: { providers: ProviderRegistry; clock: Clock; encryptionKey: string },
): DeviceConnectionsService {
  return createDeviceConnectionsService({ repository: createDevicesRepository(db), ...deps });
}

/**
 * The contract tests' set-up (stored answer == live answer, decision 0055): a participant
 * enrolled `enrolledDaysAgo` days before the simulators' clock, linked to `account` through the
 * simulator's consent page, and backfilled by the real sync (its streams, its conversion, its
 * writes), with follow-up runs when one reaches its time box. Throws when the sync does not
 * succeed.
 */
export async function syncedAccount(
  database: Database,
  sims: SyncSimulators,
  input: {
    brand: DeviceBrand;
    account: string;
    metrics: readonly string[];
    upstream?: 'fitbit-legacy';
    enrolledDaysAgo?: number;
  },
): Promise<{ teamId: number; participantId: number; connectionId: number }> {
  const db = database.db;
  const now = sims.clock.now();
  const { teamId, participantIds } = await createParticipants(db, 1);
  const participantId = participantIds[0]!;
  await enrolledOn(
    db,
    participantId,
    new Date(now.getTime() - (input.enrolledDaysAgo ?? 40) * DAY),
  );
  const connectionId = await linkForSync(db, sims, { teamId, participantId, ...input });
  const sync = buildSyncService(database, {
    providers: sims.providers,
    encryptionKey: sims.encryptionKey,
    clock: sims.clock,
  });
  let run = await sync.syncConnection(connectionId, {
    kind: 'backfill',
    owner: randomUUID(),
    force: true,
  });
  // A run that reached its time box (a loaded machine) goes on as the sync job's follow-up does.
  for (
    let followUps = 0;
    run.outcome === 'partial' && run.continueStreams && followUps < 10;
    followUps += 1
  ) {
    run = await sync.syncConnection(connectionId, {
      kind: 'backfill',
      owner: randomUUID(),
      streams: run.continueStreams,
      force: true,
    });
  }
  if (run.outcome !== 'succeeded')
    throw new Error(`sync of ${input.account}: ${JSON.stringify(run)}`);
  return { teamId, participantId, connectionId };
}

/**
 * The brands' data calls (each brand's, and the Fitbit data service) of a team on the simulators' clock, with an access
 * check that lets every participant of the team through (the contract is about the answers,
 * the access rules have their own tests). Every call takes `{ allowStored: false }` to ask the
 * provider although stored readings cover the range.
 */
export function dataServicesFor(database: Database, sims: SyncSimulators, teamId: number) {
  const db = database.db;
  const access = {
    requireParticipant: async (_auth: AuthContext, id: number) => ({ id, teamId }) as never,
  };
  const real = createDeviceConnectionsServiceOn(db, {
    providers: createProviderRegistry(sims.providers, { clock: sims.clock }),
    clock: sims.clock,
    encryptionKey: sims.encryptionKey,
  });
  // Counts the calls that went to the provider: a stored answer makes none.
  let liveCalls = 0;
  const connections: typeof real = {
    ...real,
    withConnection: ((...args: Parameters<typeof real.withConnection>) => {
      liveCalls += 1;
      return real.withConnection(...args);
    }) as typeof real.withConnection,
  };
  const readings = readingsServiceFor(db, () => sims.clock.now());
  const deviceData = createDeviceDataService({
    access,
    participants: { allowedDevices: async () => [] },
    connections,
    readings,
    clock: sims.clock,
  });
  return {
    auth: { userId: 0, user: { hiddenFields: ['email'] } } as unknown as AuthContext,
    meta: { requestId: 'contract' },
    liveCalls: () => liveCalls,
    deviceData,
    omronData: createOmronDataCalls(deviceData.brandData),
    dexcomData: createDexcomDataCalls(deviceData.brandData),
    fitbitData: createFitbitDataService({
      access,
      connections,
      // The email segment is not compared: the caller's team hides emails (decision 0061).
      repository: { emailOf: async () => null },
      readings,
      clock: sims.clock,
    }),
  };
}

/** The number of leaf values (strings, numbers, booleans, nulls) in an answer: the fields compared. */
export function leafCount(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + leafCount(item), 0);
  if (value && typeof value === 'object')
    return Object.values(value).reduce((sum: number, item) => sum + leafCount(item), 0);
  return 1;
}
