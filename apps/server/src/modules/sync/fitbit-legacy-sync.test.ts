import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { deviceReadings, participantDevices } from '../../db/schema';
import { decryptSecret } from '../../lib/crypto';
import { createTestDatabase } from '../../test/test-database';
import { buildSyncService } from './sync.composition';
import { civilToInstant } from '../../lib/civil-time';
import type { SyncService } from './sync.service';
import {
  createParticipants,
  enrolledOn,
  linkForSync,
  startSyncSimulators,
  type SyncSimulators,
} from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const DAY = 86_400_000;
const HOUR = 3_600_000;

/** Legacy Fitbit Web API connections (decision 0104), against its simulator over HTTP. */
describe(`legacy Fitbit Web API sync (${MODE})`, () => {
  let database: Database;
  let sims: SyncSimulators;
  let service: SyncService;
  let connectionId = 0;
  let participantId = 0;
  const db = () => database.db;
  const run = (kind: 'backfill' | 'incremental' = 'backfill') =>
    service.syncConnection(connectionId, { kind, owner: randomUUID(), force: true });
  const stored = (metricKey: string) =>
    db()
      .select()
      .from(deviceReadings)
      .where(
        and(
          eq(deviceReadings.participantId, participantId),
          eq(deviceReadings.metricKey, metricKey),
        ),
      )
      .orderBy(deviceReadings.recordedAt);
  const api = async (path: string) => {
    const [row] = await db()
      .select()
      .from(participantDevices)
      .where(eq(participantDevices.id, connectionId));
    const token = decryptSecret(row!.accessTokenEncrypted!, sims.encryptionKey);
    return fetch(`${sims.fitbitLegacy.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${token}` },
    });
  };
  const json = async (path: string) => {
    const response = await api(path);
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, Array<Record<string, unknown>>>;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    sims = await startSyncSimulators();
    service = buildSyncService(database, {
      providers: sims.providers,
      encryptionKey: sims.encryptionKey,
      clock: sims.clock,
    });
    const fixture = await createParticipants(db(), 1);
    participantId = fixture.participantIds[0]!;
    await enrolledOn(db(), participantId, new Date(sims.clock.nowMs() - 40 * DAY));
    connectionId = await linkForSync(db(), sims, {
      teamId: fixture.teamId,
      participantId,
      brand: 'Fitbit',
      upstream: 'fitbit-legacy',
      account: 'ava-thompson',
      metrics: ['steps', 'resting_heart_rate', 'weight', 'sleep_duration'],
    });
  });
  afterAll(async () => {
    await sims?.close();
    await database?.close();
  });

  it('backfills steps, resting heart rate, weight and sleep exactly as the legacy API holds them, with fitbit-legacy provenance; a second sync adds nothing', async () => {
    const first = await run();
    expect(first.outcome).toBe('succeeded');
    expect(first.providerCalls).toBeLessThanOrEqual(150);
    const now = sims.clock.now();
    const firstDay = new Date(Math.floor((now.getTime() - 40 * DAY) / DAY) * DAY)
      .toISOString()
      .slice(0, 10);
    const today = now.toISOString().slice(0, 10);
    // The sync covers [first day, now): a day that starts at `now` (a run at 00:00:00 UTC)
    // has not begun, so the API's entry for it (0 steps) is not expected to be stored.
    const begun = (entry: Record<string, unknown>) =>
      Date.parse(String(entry.dateTime)) < now.getTime();

    const steps = (await json(`/1/user/-/activities/steps/date/${firstDay}/${today}.json`))[
      'activities-steps'
    ]!.filter(begun);
    expect(steps.length).toBeGreaterThanOrEqual(40);
    expect(
      (await stored('steps')).map((row) => [row.recordedAt.toISOString().slice(0, 10), row.value]),
    ).toEqual(steps.map((entry) => [entry.dateTime, Number(entry.value)]));
    const heart = (await json(`/1/user/-/activities/heart/date/${firstDay}/${today}.json`))[
      'activities-heart'
    ]!;
    const resting = heart.filter(
      (entry) =>
        begun(entry) &&
        (entry.value as { restingHeartRate?: number }).restingHeartRate !== undefined,
    );
    expect(resting.length).toBeGreaterThan(20);
    expect(
      (await stored('resting_heart_rate')).map((row) => [
        row.recordedAt.toISOString().slice(0, 10),
        row.value,
      ]),
    ).toEqual(
      resting.map((entry) => [
        entry.dateTime,
        (entry.value as { restingHeartRate: number }).restingHeartRate,
      ]),
    );
    // Weights and sleep carry local times: turned into instants with the profile's time zone,
    // everything in [first day, now) must be stored, and nothing else.
    const zone = (
      (await json('/1/user/-/profile.json')) as unknown as { user: { timezone: string } }
    ).user.timezone;
    const inRange = (at: Date) => at.getTime() >= Date.parse(firstDay) && at < now;
    const weights: Array<[string, number]> = [];
    for (let from = Date.parse(firstDay) - DAY; from <= now.getTime(); from += 31 * DAY) {
      const to = new Date(Math.min(from + 30 * DAY, now.getTime())).toISOString().slice(0, 10);
      for (const entry of (
        await json(
          `/1/user/-/body/log/weight/date/${new Date(from).toISOString().slice(0, 10)}/${to}.json`,
        )
      ).weight!) {
        const at = civilToInstant(zone, `${String(entry.date)}T${String(entry.time)}`)!.at;
        if (inRange(at)) weights.push([at.toISOString(), Number(entry.weight)]);
      }
    }
    expect(weights.length).toBeGreaterThan(3);
    expect(
      (await stored('weight')).map((row) => [row.recordedAt.toISOString(), row.value]),
    ).toEqual(weights.sort((a, b) => a[0].localeCompare(b[0])));
    const sleep = (
      await json(
        `/1.2/user/-/sleep/date/${new Date(Date.parse(firstDay) - DAY).toISOString().slice(0, 10)}/${today}.json`,
      )
    )
      .sleep!.map((entry) => ({
        start: civilToInstant(zone, String(entry.startTime))!.at,
        end: civilToInstant(zone, String(entry.endTime))!.at,
        minutes: Number(entry.minutesAsleep),
      }))
      .filter((entry) => inRange(entry.end))
      .map((entry) => [entry.start.toISOString(), entry.end.toISOString(), entry.minutes])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(sleep.length).toBeGreaterThan(20);
    expect(
      (await stored('sleep_duration')).map((row) => [
        row.recordedAt.toISOString(),
        row.endAt!.toISOString(),
        row.value,
      ]),
    ).toEqual(sleep);
    expect((await stored('steps'))[0]).toMatchObject({
      upstream: 'fitbit-legacy',
      brand: 'Fitbit',
      syncRunId: first.runId,
    });

    expect(await run('incremental')).toMatchObject({
      outcome: 'succeeded',
      inserted: 0,
      updated: 0,
    });
  });

  it('a spent hour (429) backs the connection off until Fitbit-Rate-Limit-Reset says, then the sync goes on', async () => {
    // Use up the user's 150 calls of this clock hour outside the sync.
    let reset = '';
    for (let calls = 0; calls < 160; calls++) {
      const response = await api('/1/user/-/profile.json');
      await response.body?.cancel();
      if (response.status === 429) {
        reset = response.headers.get('fitbit-rate-limit-reset') ?? '';
        break;
      }
    }
    expect(reset).toMatch(/^\d+$/);
    const now = sims.clock.nowMs();
    const topOfHour = Math.ceil((now + 1) / HOUR) * HOUR;
    expect(now + Number(reset) * 1000).toBe(topOfHour);

    const limited = await run('incremental');
    expect(limited).toMatchObject({
      outcome: 'backed_off',
      errorType: 'rate_limit',
      providerCalls: 1,
    });
    expect(limited.continueAt!.getTime()).toBe(topOfHour);
    expect(await run('incremental')).toMatchObject({ outcome: 'backed_off', providerCalls: 0 });
    sims.clock.set(new Date(topOfHour));
    expect((await run('incremental')).outcome).toBe('succeeded');
  });

  it('once the legacy API answers 410 Gone the connection needs re-consent, its sync stops and every reading is kept', async () => {
    const before = (await stored('steps')).length + (await stored('weight')).length;
    expect(before).toBeGreaterThan(0);
    sims.fitbitLegacy.control.setShutdownAt(sims.clock.now());
    const gone = await run('incremental');
    expect(gone).toMatchObject({ outcome: 'needs_reconsent', errorType: 'auth_error' });
    const [row] = await db()
      .select()
      .from(participantDevices)
      .where(eq(participantDevices.id, connectionId));
    expect(row!.needsReconsent).toBe(true);
    expect(await run('incremental')).toMatchObject({
      outcome: 'needs_reconsent',
      providerCalls: 0,
    });
    expect((await stored('steps')).length + (await stored('weight')).length).toBe(before);
  });
});

describe('legacy local times', () => {
  it('turns a local civil time into its instant with the offset in force then (daylight saving time included)', () => {
    expect(civilToInstant('America/New_York', '2026-01-15T07:30:00.000')).toEqual({
      at: new Date('2026-01-15T12:30:00Z'),
      offsetMinutes: -300,
    });
    expect(civilToInstant('America/New_York', '2026-07-15T07:30:00')).toEqual({
      at: new Date('2026-07-15T11:30:00Z'),
      offsetMinutes: -240,
    });
    expect(civilToInstant('Asia/Kolkata', '2026-07-15T23:10')).toEqual({
      at: new Date('2026-07-15T17:40:00Z'),
      offsetMinutes: 330,
    });
    expect(civilToInstant('UTC', 'not a time')).toBeNull();
  });
});
