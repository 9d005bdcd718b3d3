import { eq } from 'drizzle-orm';
import { globalDeviceCatalog, participantDevices } from '../../db/schema';
import type { createManualClock } from '../../lib/clock';
import { encryptSecret } from '../../lib/crypto';
import { startAllSimulators, type AllSimulators } from '@trialpulse/provider-simulators';
import { submitConsent } from '@trialpulse/provider-simulators/common/consent-driver';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient } from '../../test/fixtures';
import { generateAuthorizationSecrets } from '../../modules/devices/core/provider-client';
import { providerSettingsFromConfig } from '../../modules/devices/core/provider-settings';
import { control } from '../../modules/devices/core/test-support';
import { createFitbitLegacyClient } from '../fitbit-legacy/fitbit-legacy.client';
import { allowAllBrands, simulatorEnv } from '../../modules/devices/test-support';
import { createTrial } from '../../modules/participants/test-support';
import { signIn } from '../../modules/trials/test-support';

type ManualClock = ReturnType<typeof createManualClock>;

/**
 * The instant the Fitbit data tests run at, whatever the real date: their fixed days
 * (2026-11-01 … 11-07) lie in the simulators' past, and no day boundary is near. The tests'
 * app clock starts here (`createManualClock(FITBIT_TESTS_NOW)`) and so do the simulators.
 */
export const FITBIT_TESTS_NOW = new Date('2026-11-20T10:10:00Z');

/**
 * Both Fitbit simulators on FITBIT_TESTS_NOW. The legacy 429 asks to wait until the top of
 * the hour: 50 minutes here, beyond what the client waits (a few seconds would be waited and
 * retried).
 */
export async function setFitbitSimulatorClocks(sims: AllSimulators): Promise<void> {
  for (const simulator of [sims.googleHealth, sims.fitbitLegacy]) {
    await control(simulator.baseUrl, 'POST', '/clock/set', {
      time: FITBIT_TESTS_NOW.toISOString(),
    });
  }
}

/**
 * The set-up the Fitbit data tests share: the simulators (the legacy API not yet shut down),
 * the app on a manual clock, a team allowed every brand with an Admin and a User, and a trial
 * of the Admin's that the User belongs to.
 */
export async function startFitbitDataApp(clock: ManualClock) {
  const sims: AllSimulators = await startAllSimulators({ fitbitLegacyShutdownAt: null });
  await setFitbitSimulatorClocks(sims);
  const ctx: TestApp = await createTestApp({ env: simulatorEnv(sims), clock });
  const db = ctx.database.db;
  const teamId = (await createTeam(db, { maxTrials: 100, maxParticipants: 1000, hiddenFields: [] }))
    .id;
  await allowAllBrands(db, teamId);
  const adminAccount = await createStaffUser(db, { role: 'Admin', teamId });
  const userAccount = await createStaffUser(db, { role: 'User', teamId });
  const admin: TestClient = await signIn(ctx.app, db, adminAccount);
  const user: TestClient = await signIn(ctx.app, db, userAccount);
  const trialId = (await createTrial(db, admin, [userAccount.email])).id;
  return { sims, ctx, teamId, admin, user, trialId };
}

/**
 * Gives a participant a legacy Fitbit Web API connection, as one made before the migration
 * to Google Health: consent at the legacy simulator, then the connection row with its
 * encrypted tokens. Answers the legacy client and the tokens (to read what the simulator holds).
 */
export async function linkLegacyFitbit(
  ctx: TestApp,
  clock: ManualClock,
  target: { teamId: number; participantId: number },
) {
  const db = ctx.database.db;
  const client = createFitbitLegacyClient(providerSettingsFromConfig(ctx.config)['fitbit-legacy']!);
  const secrets = generateAuthorizationSecrets();
  const { redirect } = await submitConsent(await client.authorizationUrl(secrets));
  const tokens = await client.exchangeCode(
    redirect.searchParams.get('code')!,
    secrets.codeVerifier,
  );
  const [catalog] = await db
    .select({ id: globalDeviceCatalog.id })
    .from(globalDeviceCatalog)
    .where(eq(globalDeviceCatalog.manufacturer, 'Fitbit'));
  const key = ctx.config.TOKEN_ENCRYPTION_KEY;
  await db.insert(participantDevices).values({
    teamId: target.teamId,
    participantId: target.participantId,
    globalDeviceCatalogId: catalog!.id,
    upstream: 'fitbit-legacy',
    accessTokenEncrypted: encryptSecret(tokens.accessToken, key),
    refreshTokenEncrypted: encryptSecret(tokens.refreshToken, key),
    tokenExpiresAt: new Date(clock.now().getTime() + 3_600_000),
    authorizationStatus: 'authorized',
    authorizationDate: clock.now(),
  });
  return { client, tokens };
}

/** The Fitbit data call's URL for a participant and a resource path. */
export const fitbitDataPath = (p: { id: number; email: string }, resourcePath: string) =>
  `/api/getFitbitServerParticipantData/${p.id}/${encodeURIComponent(p.email)}/${resourcePath}`;
