import { eq, sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { DeviceBrandName } from '@trialpulse/shared';
import type { Db } from '../../db/client';
import { globalDeviceCatalog, participantDevices, teamAllowedBrands } from '../../db/schema';
import {
  consentAtSimulator,
  environmentOf,
  type AllSimulators,
  type ConsentChoice,
} from '@trialpulse/provider-simulators/embedded';
import type { TestClient } from '../../test/fixtures';

/** The environment that points a test app at running simulators. */
export function simulatorEnv(sims: AllSimulators): Record<string, string> {
  return {
    ...environmentOf(sims),
    PUBLIC_URL: 'http://localhost:5173',
  };
}

let catalogCounter = 0;

/** Lets a team use every brand, with one catalog device per brand to file connections under. */
export async function allowAllBrands(db: Db, teamId: number): Promise<void> {
  await db
    .insert(teamAllowedBrands)
    .values((['Fitbit', 'Omron', 'Dexcom'] as const).map((brandName) => ({ teamId, brandName })))
    .onConflictDoNothing();
  const existing = await db
    .select({ id: globalDeviceCatalog.id })
    .from(globalDeviceCatalog)
    .limit(1);
  if (existing.length > 0) return;
  catalogCounter += 1;
  await db.insert(globalDeviceCatalog).values([
    {
      manufacturer: 'Fitbit',
      deviceType: 'TRACKER',
      deviceName: `Fitbit tracker ${process.pid}-${catalogCounter}`,
    },
    {
      manufacturer: 'Omron',
      deviceType: 'OMRON_BP_MONITOR',
      deviceName: `Omron monitor ${process.pid}-${catalogCounter}`,
    },
    {
      manufacturer: 'Dexcom',
      deviceType: 'DEXCOM_CGM',
      deviceName: `Dexcom CGM ${process.pid}-${catalogCounter}`,
    },
  ]);
}

const CALLBACK_PATH: Record<DeviceBrandName, string> = {
  Fitbit: '/api/fitbit-callback',
  Omron: '/api/omron-callback',
  Dexcom: '/api/dexcom-callback',
};

/** The callback body a callback page would post for a provider redirect. */
export function callbackBody(
  brand: DeviceBrandName,
  redirect: URL,
  extra: { email?: string } = {},
) {
  const code = redirect.searchParams.get('code') ?? undefined;
  const error = redirect.searchParams.get('error') ?? undefined;
  const state = redirect.searchParams.get('state') ?? '';
  const base = { state, ...(code && { authCode: code }), ...(error && { error }) };
  if (brand === 'Dexcom' && !error)
    return { ...base, participantData: { email: extra.email ?? '' } };
  return base;
}

/** Posts the provider redirect to the brand's callback API as the callback page does. */
export function postCallback(
  client: TestClient,
  brand: DeviceBrandName,
  redirect: URL,
  extra: { email?: string } = {},
) {
  return client.post(CALLBACK_PATH[brand], callbackBody(brand, redirect, extra));
}

/**
 * Links a participant's account with staff present: start, consent at the simulator, and
 * the callback. Answers the callback's response.
 */
export async function linkAsStaff(
  staff: TestClient,
  participantId: number,
  brand: DeviceBrandName,
  choice: ConsentChoice = {},
  extra: { email?: string } = {},
) {
  const started = await staff.post('/api/deviceAuthorization', { participantId, brand });
  expect(started.statusCode, started.body).toBe(200);
  const redirect = await consentAtProvider(started.json().authorizeUrl, choice);
  return postCallback(staff, brand, redirect, extra);
}

/** Answers a provider's consent page as the participant would; returns the redirect. */
export async function consentAtProvider(
  authorizeUrl: string,
  choice: ConsentChoice = {},
): Promise<URL> {
  return consentAtSimulator(authorizeUrl, choice);
}

export async function connectionRow(db: Db, participantId: number) {
  return db
    .select()
    .from(participantDevices)
    .where(eq(participantDevices.participantId, participantId));
}

/** Every row of every table of the public schema as JSON text: what a database dump holds. */
export async function dumpDatabase(db: Db): Promise<string> {
  const tables = await db.execute<{ table_name: string }>(
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const rowsOf = (result: unknown) =>
    Array.isArray(result) ? result : ((result as { rows: unknown[] }).rows ?? []);
  const parts: string[] = [];
  for (const { table_name } of rowsOf(tables) as { table_name: string }[]) {
    const rows = await db.execute(
      sql.raw(`SELECT row_to_json(t)::text AS row FROM "${table_name}" t`),
    );
    for (const row of rowsOf(rows) as { row: string }[]) parts.push(row.row);
  }
  return parts.join('\n');
}
