import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { loadConfig } from '../../config/env';
import type { Db } from '../../db/client';
import {
  deviceMetricSettings,
  globalDeviceCatalog,
  participantDevices,
  participants,
  teamDeviceDataStorageSettings,
  teamSupportedDevices,
  trials,
  users,
  type DeviceBrand,
} from '../../db/schema';
import { encryptSecret } from '../../lib/crypto';
import { createSimulatedClock } from '@trialpulse/provider-simulators/common/clock';
import { submitConsent } from '@trialpulse/provider-simulators/common/consent-driver';
import { startDexcomSimulator } from '@trialpulse/provider-simulators/dexcom';
import { startFitbitLegacySimulator } from '@trialpulse/provider-simulators/fitbit-legacy';
import { startGoogleHealthSimulator } from '@trialpulse/provider-simulators/google-health';
import { startOmronSimulator } from '@trialpulse/provider-simulators/omron';
import { generateAuthorizationSecrets } from '../devices/core/provider-client';
import { createProviderRegistry } from '../devices/core/provider-registry';
import { providerSettingsFromConfig } from '../devices/core/provider-settings';
import { simulatorEnvironment } from '@trialpulse/provider-simulators/embedded';
import { createTeam } from '../../test/fixtures';
import { readingDaysFromScratch } from './daily-summary';
import { createReadingsRepository } from './readings.repository';
import { createReadingsService, type ReadingsService } from './readings.service';
import { createSyncRepository } from './sync.repository';

/** The readings service on a test database: tests store readings through the real write path. */
export function readingsServiceFor(db: Db, now?: () => Date): ReadingsService {
  return createReadingsService({
    readings: createReadingsRepository(db),
    sync: createSyncRepository(db),
    ...(now && { now }),
  });
}

let counter = 0;

/** A team, an owner, a trial and `count` participants, written directly (no API needed). */
export async function createParticipants(
  db: Db,
  count = 1,
): Promise<{ teamId: number; trialId: number; participantIds: number[] }> {
  const tag = `${process.pid}-${++counter}-${Date.now().toString(36)}`;
  const team = await createTeam(db);
  const [owner] = await db
    .insert(users)
    .values({
      email: `owner-${tag}@example.test`,
      username: `owner-${tag}@example.test`,
      firstName: 'O',
      lastName: 'Wner',
    })
    .returning({ id: users.id });
  const [trial] = await db
    .insert(trials)
    .values({
      teamId: team.id,
      trialNumber: `S-${tag}`,
      trialName: 'Sync fixture',
      trialCode: `S${counter}`,
      ownerUserId: owner!.id,
    })
    .returning({ id: trials.id });
  const rows = await db
    .insert(participants)
    .values(
      Array.from({ length: count }, (_, index) => ({
        teamId: team.id,
        trialId: trial!.id,
        participantCode: `S${counter}-${String(index + 1).padStart(3, '0')}`,
        participantCodeSuffix: String(index + 1).padStart(3, '0'),
      })),
    )
    .returning({ id: participants.id });
  return { teamId: team.id, trialId: trial!.id, participantIds: rows.map((row) => row.id) };
}

/**
 * Simulators on one frozen clock with the providers' settings pointing at them (sync tests).
 * SYNC_TEST_START (an ISO instant) replays a run at a given time — a failure seen only at
 * some time of day (00:00:00 UTC, a sample landing on a test's chosen second) reproduces.
 */
export async function startSyncSimulators(
  start: Date = process.env.SYNC_TEST_START
    ? new Date(process.env.SYNC_TEST_START)
    : new Date(Math.floor(Date.now() / 60_000) * 60_000),
) {
  const clock = createSimulatedClock({ start, frozen: true });
  const googleHealth = await startGoogleHealthSimulator({ clock, port: 0 });
  // Omron's ID tokens are checked against the real time: its clock follows the wall clock.
  const omron = await startOmronSimulator({ port: 0 });
  const dexcom = await startDexcomSimulator({ clock, port: 0 });
  // The retired Fitbit Web API, still running until a test shuts it down.
  const fitbitLegacy = await startFitbitLegacySimulator({ clock, port: 0, shutdownAt: null });
  const config = loadConfig({
    TRIALPULSE_MODE: 'test',
    APP_SECRET: randomBytes(32).toString('hex'),
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PUBLIC_URL: 'http://localhost:5173',
    ...simulatorEnvironment({
      googleHealth: googleHealth.baseUrl,
      fitbitLegacy: fitbitLegacy.baseUrl,
      omron: omron.baseUrl,
      dexcom: dexcom.baseUrl,
    }),
  });
  const providers = providerSettingsFromConfig(config);
  return {
    clock,
    googleHealth,
    fitbitLegacy,
    omron,
    dexcom,
    providers,
    encryptionKey: config.TOKEN_ENCRYPTION_KEY,
    registry: createProviderRegistry(providers, { clock }),
    close: () =>
      Promise.all([googleHealth.close(), fitbitLegacy.close(), omron.close(), dexcom.close()]).then(
        () => undefined,
      ),
  };
}
export type SyncSimulators = Awaited<ReturnType<typeof startSyncSimulators>>;

const UPSTREAM_OF: Record<DeviceBrand, 'google-health' | 'omron' | 'dexcom'> = {
  Fitbit: 'google-health',
  Omron: 'omron',
  Dexcom: 'dexcom',
};
const DEVICE_TYPE_OF: Record<DeviceBrand, string> = {
  Fitbit: 'TRACKER',
  Omron: 'OMRON_BP_MONITOR',
  Dexcom: 'DEXCOM_CGM',
};

/**
 * A team device of the brand (catalog and team-supported) with `metrics` enabled in both
 * layers, `teamOnlyMetrics` in the team layer only and `adminOnlyMetrics` in the system
 * administrator's only. Returns the catalog device.
 */
export async function enableMetrics(
  db: Db,
  input: {
    teamId: number;
    brand: DeviceBrand;
    metrics: readonly string[];
    teamOnlyMetrics?: readonly string[];
    adminOnlyMetrics?: readonly string[];
    retentionDays?: number;
  },
): Promise<{ id: number }> {
  const [device] = await db
    .insert(globalDeviceCatalog)
    .values({
      manufacturer: input.brand,
      deviceType: DEVICE_TYPE_OF[input.brand],
      deviceName: `${input.brand} sync ${input.teamId}-${++counter}`,
    })
    .returning({ id: globalDeviceCatalog.id });
  const [supported] = await db
    .insert(teamSupportedDevices)
    .values({ teamId: input.teamId, globalDeviceCatalogId: device!.id })
    .onConflictDoNothing()
    .returning({ id: teamSupportedDevices.id });
  const retentionDays = input.retentionDays ?? 365;
  const layer = (keys: readonly string[]) =>
    keys.map((metricKey) => ({
      teamId: input.teamId,
      teamSupportedDeviceId: supported!.id,
      metricKey,
      metricName: metricKey,
      isEnabled: true,
      retentionDays,
    }));
  const admin = [...input.metrics, ...(input.adminOnlyMetrics ?? [])];
  const team = [...input.metrics, ...(input.teamOnlyMetrics ?? [])];
  if (admin.length) await db.insert(deviceMetricSettings).values(layer(admin));
  if (team.length) await db.insert(teamDeviceDataStorageSettings).values(layer(team));

  return device!;
}

/**
 * A team device of the brand with `metrics` enabled in both layers (or `teamMetrics` in the
 * team layer only, to test the two-layer rule), and the participant linked to `account`
 * through the simulator's real consent page and code exchange. Returns the connection id.
 */
export async function linkForSync(
  db: Db,
  sims: SyncSimulators,
  input: {
    teamId: number;
    participantId: number;
    brand: DeviceBrand;
    account: string;
    metrics: readonly string[];
    teamOnlyMetrics?: readonly string[];
    adminOnlyMetrics?: readonly string[];
    retentionDays?: number;
    /** A Fitbit connection made through the retired Fitbit Web API (default: Google Health). */
    upstream?: 'fitbit-legacy';
  },
): Promise<number> {
  const upstream = input.upstream ?? UPSTREAM_OF[input.brand];
  const device = await enableMetrics(db, input);

  const client = sims.registry.client(upstream)!;
  const { state, codeVerifier } = generateAuthorizationSecrets();
  const url = await client.authorizationUrl({
    state,
    ...(client.supportsPkce && { codeVerifier }),
  });
  const { redirect } = await submitConsent(url, { account: input.account });
  const tokens = await client.exchangeCode(
    redirect.searchParams.get('code')!,
    client.supportsPkce ? codeVerifier : undefined,
  );
  let providerUserId = tokens.providerUserId ?? null;
  if (upstream === 'google-health')
    providerUserId = (await sims.registry.googleHealth()!.getIdentity(tokens.accessToken))
      .healthUserId;
  const now = sims.clock.now();
  const [connection] = await db
    .insert(participantDevices)
    .values({
      teamId: input.teamId,
      participantId: input.participantId,
      globalDeviceCatalogId: device.id,
      upstream,
      providerUserId,
      accessTokenEncrypted: encryptSecret(tokens.accessToken, sims.encryptionKey),
      refreshTokenEncrypted: encryptSecret(tokens.refreshToken, sims.encryptionKey),
      tokenExpiresAt: tokens.expiresAt,
      scopes: tokens.scopes,
      authorizationStatus: 'authorized',
      authorizationDate: now,
      lastRefreshedAt: now,
    })
    .returning({ id: participantDevices.id });
  return connection!.id;
}

/** Backdates a participant's enrolment (participants.created_at). */
export async function enrolledOn(db: Db, participantId: number, at: Date): Promise<void> {
  await db.update(participants).set({ createdAt: at }).where(eq(participants.id, participantId));
}

/**
 * A team's day summary as the write path kept it and as rebuilt from scratch from every
 * stored reading (decision 0058), in the same order: a test expects them equal, and
 * `maintained` not empty.
 */
export async function teamSummaryAndRebuild(
  db: Db,
  teamId: number,
): Promise<{ maintained: unknown[]; scratch: unknown[] }> {
  const maintained = await db.execute(sql`
    select participant_id, team_id, metric_key, day, readings, minutes, value_sum, first_at, last_at
      from device_reading_days where team_id = ${teamId} order by 1, 3, 4`);
  const scratch = await db.execute(sql`
    select * from (${readingDaysFromScratch()}) s where team_id = ${teamId} order by 1, 3, 4`);
  return { maintained: maintained.rows, scratch: scratch.rows };
}

/**
 * The totals the database keeps per participant × metric × brand (decision 0257) and a count
 * of `stored_readings` from scratch, as `participant|team|metric|brand` → `readings (rows n)`
 * (n: those in `device_readings`; a kept zero left out): a test expects them equal, and
 * `counted` not empty.
 */
export async function keptTotalsAndCounts(
  db: Db,
): Promise<{ kept: Record<string, string>; counted: Record<string, string> }> {
  const kept = await db.execute<{ key: string; n: string }>(sql`
    select concat_ws('|', participant_id, team_id, metric_key, brand) as key,
           readings::text || ' (rows ' || row_readings::text || ')' as n
      from device_reading_totals where readings <> 0`);
  // Every reading, and of them the rows of device_readings (the rest are chunk points).
  const counted = await db.execute<{ key: string; n: string }>(sql`
    select concat_ws('|', s.participant_id, s.team_id, s.metric_key, s.brand) as key,
           count(*)::text || ' (rows ' || coalesce(max(r.n), 0)::text || ')' as n
      from stored_readings s
      left join (select participant_id, team_id, metric_key, brand, count(*) as n from device_readings
                  group by participant_id, team_id, metric_key, brand) r
        on r.participant_id = s.participant_id and r.team_id = s.team_id
       and r.metric_key = s.metric_key and r.brand = s.brand
     group by s.participant_id, s.team_id, s.metric_key, s.brand`);
  const byKey = (rows: { key: string; n: string }[]) =>
    Object.fromEntries(rows.map((row) => [row.key, row.n]));
  return { kept: byKey(kept.rows), counted: byKey(counted.rows) };
}
