import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncStateLabel } from '@trialpulse/shared';
import { createStaffUser, signIn, type TestClient } from '../../test/fixtures';
import { createTestApp, type TestApp } from '../../test/test-app';
import { buildSyncService } from './sync.composition';
import {
  createParticipants,
  enrolledOn,
  linkForSync,
  readingsServiceFor,
  startSyncSimulators,
  type SyncSimulators,
} from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const DAY = 86_400_000;

describe(`sync status, last data and the weekly summary through the API (${MODE})`, () => {
  let test: TestApp;
  let sims: SyncSimulators;
  let staff: TestClient;
  let otherTeamStaff: TestClient;
  let participantId: number;
  let trialId: number;

  beforeAll(async () => {
    sims = await startSyncSimulators();
    test = await createTestApp({ clock: sims.clock });
    const db = test.database.db;
    const fixture = await createParticipants(db, 2);
    trialId = fixture.trialId;
    participantId = fixture.participantIds[0]!;
    staff = await signIn(
      test.app,
      db,
      await createStaffUser(db, { role: 'Admin', teamId: fixture.teamId }),
    );
    const other = await createParticipants(db, 1);
    otherTeamStaff = await signIn(
      test.app,
      db,
      await createStaffUser(db, { role: 'Admin', teamId: other.teamId }),
    );
    await enrolledOn(db, participantId, new Date(sims.clock.nowMs() - 20 * DAY));
    const connectionId = await linkForSync(db, sims, {
      teamId: fixture.teamId,
      participantId,
      brand: 'Fitbit',
      account: 'ben-okafor',
      metrics: ['steps', 'resting_heart_rate', 'sleep_duration', 'weight', 'distance', 'floors'],
    });
    const service = buildSyncService(test.database, {
      providers: sims.providers,
      encryptionKey: sims.encryptionKey,
      clock: sims.clock,
    });
    expect(
      (await service.syncConnection(connectionId, { kind: 'backfill', owner: randomUUID() }))
        .outcome,
    ).toBe('succeeded');
  });
  afterAll(async () => {
    await test?.close();
    await sims?.close();
  });

  it('shows each connection’s sync state, last sync and the readings stored', async () => {
    const response = await staff.get(`/api/deviceSync/participant/${participantId}`);
    expect(response.statusCode, response.body).toBe(200);
    const [fitbit] = response.json().connections;
    expect(fitbit).toMatchObject({
      brand: 'Fitbit',
      upstream: 'google-health',
      state: 'up_to_date',
      backfillPercent: null,
    });
    expect(syncStateLabel(fitbit)).toBe('Up to date');
    const teamId = (await test.database.db.query.participants.findFirst({
      where: (p, { eq }) => eq(p.id, participantId),
    }))!.teamId;
    const stats = await readingsServiceFor(test.database.db).stats(teamId, participantId);
    expect(fitbit.rowsStored).toBe(stats.reduce((sum, row) => sum + row.rows, 0));
    expect(fitbit.rowsStored).toBeGreaterThan(20);
    expect(fitbit.metrics.map((metric: { metricKey: string }) => metric.metricKey)).toEqual(
      stats.map((row) => row.metricKey),
    );
    expect(fitbit.lastSyncAt).not.toBeNull();
    // The scheduler's next quarter-hour tick, and the metrics the team stores (decision 0191).
    const next = Date.parse(fitbit.nextSyncAt);
    expect(next % (15 * 60_000)).toBe(0);
    expect(next - sims.clock.nowMs()).toBeGreaterThan(0);
    expect(next - sims.clock.nowMs()).toBeLessThanOrEqual(15 * 60_000);
    expect([...fitbit.enabledMetrics].sort()).toEqual(
      ['distance', 'floors', 'resting_heart_rate', 'sleep_duration', 'steps', 'weight'].sort(),
    );
    // Another team's staff do not see the participant.
    expect(
      (await otherTeamStaff.get(`/api/deviceSync/participant/${participantId}`)).statusCode,
    ).toBe(404);
  });

  it('a connection is backfilling while an enabled metric has no stored window yet', async () => {
    const db = test.database.db;
    const fixture = await createParticipants(db, 1);
    const secondId = fixture.participantIds[0]!;
    const admin = await signIn(
      test.app,
      db,
      await createStaffUser(db, { role: 'Admin', teamId: fixture.teamId }),
    );
    await enrolledOn(db, secondId, new Date(sims.clock.nowMs() - 5 * DAY));
    const connectionId = await linkForSync(db, sims, {
      teamId: fixture.teamId,
      participantId: secondId,
      brand: 'Fitbit',
      account: 'ben-okafor',
      metrics: ['steps', 'weight'],
    });
    const service = buildSyncService(test.database, {
      providers: sims.providers,
      encryptionKey: sims.encryptionKey,
      clock: sims.clock,
    });
    // Only the weight stream runs: steps is enabled but has no cursor yet.
    expect(
      (
        await service.syncConnection(connectionId, {
          kind: 'backfill',
          owner: randomUUID(),
          streams: ['weight'],
        })
      ).outcome,
    ).toBe('succeeded');
    const partial = (await admin.get(`/api/deviceSync/participant/${secondId}`)).json()
      .connections[0];
    expect(partial.state).toBe('backfilling');
    expect(
      (await service.syncConnection(connectionId, { kind: 'backfill', owner: randomUUID() }))
        .outcome,
    ).toBe('succeeded');
    const done = (await admin.get(`/api/deviceSync/participant/${secondId}`)).json().connections[0];
    expect(done.state).toBe('up_to_date');
  });

  it('answers the latest stored reading per participant of a trial (the last-data badge)', async () => {
    const response = await staff.get(`/api/deviceSync/trial/${trialId}/lastData`);
    expect(response.statusCode, response.body).toBe(200);
    const rows = response.json().participants as Array<{
      participantId: number;
      latestReading: string | null;
    }>;
    expect(rows).toHaveLength(2);
    expect(rows.find((row) => row.participantId === participantId)!.latestReading).not.toBeNull();
    expect(rows.find((row) => row.participantId !== participantId)!.latestReading).toBeNull();
    expect((await otherTeamStaff.get(`/api/deviceSync/trial/${trialId}/lastData`)).statusCode).toBe(
      404,
    );
  });

  it('computes the weekly summary from stored readings; a client’s figures are ignored', async () => {
    const posted = await staff.post(`/api/fitbitDataLocalDB/${participantId}`, {
      email: 'x@example.test',
      data: { total_steps_last_7days: 1 },
    });
    expect(posted.statusCode, posted.body).toBe(200);
    const summary = posted.json();
    const readings = readingsServiceFor(test.database.db);
    const teamId = (await test.database.db.query.participants.findFirst({
      where: (p, { eq }) => eq(p.id, participantId),
    }))!.teamId;
    // The last 7 complete local days, named by the answer (decision 0180): today is not one.
    const midnight = (day: string) => new Date(`${day}T00:00:00Z`);
    const afterDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + DAY);
    const today = new Date(Math.floor(sims.clock.nowMs() / DAY) * DAY).toISOString().slice(0, 10);
    expect(summary.last_7days_end < today || summary.last_7days_end === today).toBe(true);
    expect(summary.prev_7days_end < summary.last_7days_start).toBe(true);
    const steps = await readings.read({
      teamId,
      participantId,
      metricKeys: ['steps'],
      from: midnight(summary.last_7days_start),
      to: afterDay(summary.last_7days_end),
    });
    expect(summary.total_steps_last_7days).toBe(steps.reduce((sum, row) => sum + row.value!, 0));
    expect(summary.total_steps_last_7days).toBeGreaterThan(1);
    const prev = await readings.read({
      teamId,
      participantId,
      metricKeys: ['steps'],
      from: midnight(summary.prev_7days_start),
      to: afterDay(summary.prev_7days_end),
    });
    expect(summary.total_steps_prev_7days).toBe(prev.reduce((sum, row) => sum + row.value!, 0));
    expect(summary.avrg_resting_heart_rate_last_7days).toBeGreaterThan(30);
    const got = await staff.get(`/api/fitbitDataLocalDB/${participantId}`);
    expect(got.json()).toEqual(summary);
    expect((await otherTeamStaff.get(`/api/fitbitDataLocalDB/${participantId}`)).statusCode).toBe(
      404,
    );
  });
});
