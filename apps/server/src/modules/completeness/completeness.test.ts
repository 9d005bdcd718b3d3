import { and, eq, gt } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletenessGrid, CompletenessRow } from '@trialpulse/shared';
import { auditLog } from '../../db/schema';
import { createManualClock } from '../../lib/clock';
import { createStaffUser, createTeam, signIn, type TestClient } from '../../test/fixtures';
import { createTestApp, type TestApp } from '../../test/test-app';
import { addParticipant, createTrial } from '../participants/test-support';
import { dailySummariesFromReadings } from '../sync/daily-summary';
import { readingsServiceFor } from '../sync/test-support';
import { createRowsBuilder } from './completeness.service';
import { addConnection } from './test-support';
import {
  bloodPressure,
  cgmReadings,
  dailyValue,
  heartRateMinutes,
  sleepSession,
  weight,
} from './reading-generators';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const NOW = new Date('2026-06-15T12:00:00Z');
const at = (iso: string) => new Date(iso);
const CET = 120; // UTC+2 (summer in Berlin)
const NYC = -240; // UTC−4 (summer in New York)

describe(`data completeness grid (${MODE})`, () => {
  let ctx: TestApp;
  let admin: TestClient;
  let user: TestClient;
  let outsider: TestClient;
  let otherTeamAdmin: TestClient;
  let trialId: number;
  const ids: Record<
    'berlin' | 'newYork' | 'cgm' | 'reconsent' | 'battery' | 'stale' | 'scale',
    number
  > = {} as never;
  let teamId: number;
  let clock: ReturnType<typeof createManualClock>;

  beforeAll(async () => {
    clock = createManualClock(NOW);
    ctx = await createTestApp({ clock });
    const db = ctx.database.db;
    const team = await createTeam(db, { maxTrials: 10, maxParticipants: 100, hiddenFields: [] });
    teamId = team.id;
    const adminUser = await createStaffUser(db, { role: 'Admin', teamId });
    const trialUser = await createStaffUser(db, { role: 'User', teamId });
    admin = await signIn(ctx.app, db, adminUser);
    user = await signIn(ctx.app, db, trialUser);
    outsider = await signIn(ctx.app, db, await createStaffUser(db, { role: 'Viewer', teamId }));
    const otherTeam = await createTeam(db, { maxTrials: 10, maxParticipants: 100 });
    otherTeamAdmin = await signIn(
      ctx.app,
      db,
      await createStaffUser(db, { role: 'Admin', teamId: otherTeam.id }),
    );
    const trial = await createTrial(db, admin, [trialUser.email]);
    trialId = trial.id;
    for (const key of Object.keys({
      berlin: 0,
      newYork: 0,
      cgm: 0,
      reconsent: 0,
      battery: 0,
      stale: 0,
      scale: 0,
    }) as (keyof typeof ids)[]) {
      ids[key] = (await addParticipant(admin, { trialId })).participantId;
    }
    const owner = (key: keyof typeof ids) => ({ participantId: ids[key], teamId });
    const readings = readingsServiceFor(db, () => NOW);
    const since = at('2026-05-01T09:00:00Z');
    const fresh = at('2026-06-15T08:00:00Z');
    await addConnection(db, {
      ...owner('berlin'),
      brand: 'Fitbit',
      authorizedAt: since,
      deviceLastSyncAt: fresh,
      battery: 'High',
    });
    await addConnection(db, {
      ...owner('newYork'),
      brand: 'Fitbit',
      authorizedAt: since,
      deviceLastSyncAt: fresh,
    });
    await addConnection(db, {
      ...owner('cgm'),
      brand: 'Dexcom',
      authorizedAt: since,
      deviceLastSyncAt: fresh,
    });
    await addConnection(db, {
      ...owner('reconsent'),
      brand: 'Fitbit',
      authorizedAt: since,
      needsReconsent: true,
    });
    await addConnection(db, {
      ...owner('battery'),
      brand: 'Fitbit',
      authorizedAt: since,
      deviceLastSyncAt: fresh,
      battery: 'Empty',
      batteryLevel: 0,
    });
    await addConnection(db, {
      ...owner('stale'),
      brand: 'Fitbit',
      authorizedAt: since,
      deviceLastSyncAt: at('2026-06-10T07:00:00Z'),
    });
    await addConnection(db, {
      ...owner('scale'),
      brand: 'Omron',
      authorizedAt: since,
      deviceLastSyncAt: fresh,
    });

    await readings.store([
      // Berlin, 10 June: 660 worn minutes from 07:00 local (05:00 UTC); the first 30 minutes
      // carry two samples each and still count once.
      ...heartRateMinutes(owner('berlin'), at('2026-06-10T05:00:00Z'), 660, CET, 30),
      // 11 June: 480 minutes (8 h, below the 10 h default).
      ...heartRateMinutes(owner('berlin'), at('2026-06-11T05:00:00Z'), 480, CET),
      // 12 June: nothing at all.
      // 23:00–23:30 UTC on 13 June is 01:00–01:30 on 14 June in Berlin.
      ...heartRateMinutes(owner('berlin'), at('2026-06-13T23:00:00Z'), 30, CET),
      dailyValue(owner('berlin'), '2026-06-10', 'steps', 8042),
      // Asleep 23:00 local on 10 June to 07:00 local on 11 June: counts on the wake-up day.
      sleepSession(owner('berlin'), at('2026-06-10T21:00:00Z'), at('2026-06-11T05:00:00Z'), CET),
      // New York: 02:00–03:00 UTC on 13 June is 22:00–23:00 on 12 June locally.
      ...heartRateMinutes(owner('newYork'), at('2026-06-13T02:00:00Z'), 60, NYC),
      // Dexcom: full day, half a day, three quarters; then nothing.
      ...cgmReadings(owner('cgm'), at('2026-06-10T00:00:00Z'), 288, 0),
      ...cgmReadings(owner('cgm'), at('2026-06-11T00:00:00Z'), 144, 0),
      ...cgmReadings(owner('cgm'), at('2026-06-12T00:00:00Z'), 216, 0),
      ...bloodPressure(owner('scale'), at('2026-06-12T06:30:00Z'), 0),
      ...bloodPressure(owner('scale'), at('2026-06-12T19:30:00Z'), 0),
      weight(owner('scale'), at('2026-06-12T06:35:00Z'), 0),
    ]);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const grid = async (client: TestClient, days = 14) => {
    const response = await client.get(`/api/trials/${trialId}/completeness?days=${days}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as CompletenessGrid;
  };
  const rowOf = (data: CompletenessGrid, key: keyof typeof ids) =>
    data.rows.find((row) => row.participantId === ids[key])!;
  const onDay = <K extends keyof CompletenessRow>(
    data: CompletenessGrid,
    row: CompletenessRow,
    field: K,
    day: string,
  ) => (row[field] as unknown[])[data.days.indexOf(day)];

  it('computes wear minutes per local day, counting a minute once however many samples it has', async () => {
    const data = await grid(admin);
    expect(data.days).toHaveLength(14);
    expect(data.days[0]).toBe('2026-06-02');
    expect(data.days.at(-1)).toBe('2026-06-15');
    const berlin = rowOf(data, 'berlin');
    expect(onDay(data, berlin, 'wearMinutes', '2026-06-10')).toBe(660);
    expect(onDay(data, berlin, 'wearMinutes', '2026-06-11')).toBe(480);
    expect(onDay(data, berlin, 'wearMinutes', '2026-06-12')).toBe(0);
    expect(onDay(data, berlin, 'steps', '2026-06-10')).toBe(8042);
    expect(onDay(data, berlin, 'sleepMinutes', '2026-06-11')).toBe(480);
    expect(onDay(data, berlin, 'sleepMinutes', '2026-06-10')).toBeNull();
    expect(onDay(data, berlin, 'states', '2026-06-10')).toBe('valid');
    expect(onDay(data, berlin, 'states', '2026-06-11')).toBe('partial');
    expect(onDay(data, berlin, 'states', '2026-06-12')).toBe('missing');
  });

  it("puts readings on the participant's local date (utc_offset_minutes), not the UTC date", async () => {
    const data = await grid(admin);
    const berlin = rowOf(data, 'berlin');
    expect(onDay(data, berlin, 'wearMinutes', '2026-06-13')).toBe(0);
    expect(onDay(data, berlin, 'wearMinutes', '2026-06-14')).toBe(30);
    const newYork = rowOf(data, 'newYork');
    expect(onDay(data, newYork, 'wearMinutes', '2026-06-12')).toBe(60);
    expect(onDay(data, newYork, 'wearMinutes', '2026-06-13')).toBe(0);
  });

  it('computes CGM sensor usage as readings ÷ 288 and judges it against 70 %', async () => {
    const data = await grid(admin);
    const cgm = rowOf(data, 'cgm');
    expect(onDay(data, cgm, 'cgmUsagePercent', '2026-06-10')).toBe(100);
    expect(onDay(data, cgm, 'cgmUsagePercent', '2026-06-11')).toBe(50);
    expect(onDay(data, cgm, 'cgmUsagePercent', '2026-06-12')).toBe(75);
    expect(onDay(data, cgm, 'cgmUsagePercent', '2026-06-13')).toBe(0);
    expect(
      cgm.states.slice(data.days.indexOf('2026-06-10'), data.days.indexOf('2026-06-14')),
    ).toEqual(['valid', 'partial', 'valid', 'missing']);
    // Connected since May: every day of the range but today (in progress, decision 0111)
    // is expected; two of 13 are valid.
    expect(onDay(data, cgm, 'states', '2026-06-15')).toBe('in_progress');
    expect(cgm.expectedDays).toBe(13);
    expect(cgm.validDays).toBe(2);
    expect(cgm.validPercent).toBe(15.4);
  });

  it('counts blood-pressure and weight readings; under the defaults an Omron day without a reading is missing (decision 0181)', async () => {
    const data = await grid(admin);
    const scale = rowOf(data, 'scale');
    expect(onDay(data, scale, 'bpReadings', '2026-06-12')).toBe(2);
    expect(onDay(data, scale, 'weightReadings', '2026-06-12')).toBe(1);
    expect(onDay(data, scale, 'states', '2026-06-12')).toBe('valid');
    // Linked by then, and the protocol sets no number: one Omron reading a day is expected.
    expect(onDay(data, scale, 'states', '2026-06-11')).toBe('missing');
    expect(scale.belowThreshold).toBe(true);
  });

  it('shows sync health per connection and warns on re-consent, an empty battery and a stale sync', async () => {
    const data = await grid(admin);
    expect(rowOf(data, 'reconsent').warnings).toEqual(['needs_reconsent']);
    expect(rowOf(data, 'battery').warnings).toEqual(['battery_empty']);
    expect(rowOf(data, 'stale').warnings).toEqual(['no_recent_sync']);
    expect(rowOf(data, 'stale').connections[0]).toMatchObject({
      brand: 'Fitbit',
      daysSinceSync: 5,
    });
    expect(rowOf(data, 'berlin').warnings).toEqual([]);
    expect(rowOf(data, 'berlin').connections[0]).toMatchObject({
      battery: 'High',
      daysSinceSync: 0,
      needsReconsent: false,
    });
    // Worst first: the share of valid days only grows down the list.
    const shares = data.rows.map((row) => row.validPercent ?? 101);
    expect(shares).toEqual([...shares].sort((a, b) => a - b));
  });

  it('recomputes states when an Admin changes the thresholds, and audits the change', async () => {
    const response = await admin.request('PUT', `/api/trials/${trialId}/completeness/thresholds`, {
      minWearHours: 8,
      minCgmUsagePercent: 50,
      minBpReadingsPerDay: 3,
      maxDaysWithoutSync: 7,
    });
    expect(response.statusCode, response.body).toBe(200);
    const data = await grid(admin);
    expect(data.thresholds).toEqual({
      minWearHours: 8,
      minCgmUsagePercent: 50,
      minBpReadingsPerDay: 3,
      maxDaysWithoutSync: 7,
    });
    expect(onDay(data, rowOf(data, 'berlin'), 'states', '2026-06-11')).toBe('valid');
    expect(onDay(data, rowOf(data, 'cgm'), 'states', '2026-06-11')).toBe('valid');
    expect(onDay(data, rowOf(data, 'scale'), 'states', '2026-06-12')).toBe('partial');
    expect(rowOf(data, 'stale').warnings).toEqual([]);
    const audits = await ctx.database.db
      .select()
      .from(auditLog)
      .where(
        and(
          eq(auditLog.action, 'completeness.thresholds.update'),
          eq(auditLog.entityId, String(trialId)),
        ),
      );
    expect(audits).toHaveLength(1);
    expect(audits[0]!.before).toMatchObject({ minWearHours: 10, maxDaysWithoutSync: 3 });
    expect(audits[0]!.after).toMatchObject({ minWearHours: 8, maxDaysWithoutSync: 7 });
  });

  it('refuses thresholds from a User (403) and out-of-range values (400), and hides the trial from outsiders (404)', async () => {
    const body = {
      minWearHours: 1,
      minCgmUsagePercent: 1,
      minBpReadingsPerDay: 0,
      maxDaysWithoutSync: 1,
    };
    expect(
      (await user.request('PUT', `/api/trials/${trialId}/completeness/thresholds`, body))
        .statusCode,
    ).toBe(403);
    const invalid = await admin.request('PUT', `/api/trials/${trialId}/completeness/thresholds`, {
      ...body,
      minWearHours: 25,
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.body).toContain('Wear hours must be a whole number from 0 to 24');
    expect((await grid(user)).rows).toHaveLength(7);
    expect((await outsider.get(`/api/trials/${trialId}/completeness`)).statusCode).toBe(404);
    expect((await otherTeamAdmin.get(`/api/trials/${trialId}/completeness`)).statusCode).toBe(404);
    expect(
      (
        await otherTeamAdmin.get(
          `/api/trials/${trialId}/completeness/adherence.csv?from=2026-06-01&to=2026-06-02`,
        )
      ).statusCode,
    ).toBe(404);
    expect((await admin.get(`/api/trials/${trialId}/completeness?days=7`)).statusCode).toBe(400);
  });

  it("answers the trial page's strips for the given participants only, in one call", async () => {
    const response = await user.get(
      `/api/trials/${trialId}/completeness/strips?participantIds=${ids.berlin},${ids.reconsent},999999`,
    );
    expect(response.statusCode, response.body).toBe(200);
    const { days, strips } = response.json();
    expect(days).toHaveLength(14);
    expect(strips.map((strip: { participantId: number }) => strip.participantId).sort()).toEqual(
      [ids.berlin, ids.reconsent].sort(),
    );
    expect(
      strips.find((strip: { participantId: number }) => strip.participantId === ids.reconsent)
        .warnings,
    ).toEqual(['needs_reconsent']);
  });

  it('downloads the adherence CSV: one row per participant and day, audited', async () => {
    const before = (await ctx.database.db.select({ id: auditLog.id }).from(auditLog)).length;
    const response = await user.get(
      `/api/trials/${trialId}/completeness/adherence.csv?from=2026-06-10&to=2026-06-12`,
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toContain('text/csv');
    const lines = response.body.trim().split('\n');
    expect(lines[0]).toBe(
      'participant_code,date,state,wear_minutes,steps,sleep_recorded,sleep_minutes,bp_readings,weight_readings,cgm_readings,cgm_usage_percent',
    );
    expect(lines).toHaveLength(1 + 7 * 3);
    const berlinCode = (await grid(admin)).rows.find(
      (row) => row.participantId === ids.berlin,
    )!.participantCode;
    expect(lines).toContain(`${berlinCode},2026-06-10,valid,660,8042,no,,0,0,,`);
    expect(lines).toContain(`${berlinCode},2026-06-11,valid,480,,yes,480,0,0,,`);
    expect(lines).toContain(`${berlinCode},2026-06-12,missing,0,,no,,0,0,,`);
    const audits = await ctx.database.db
      .select()
      .from(auditLog)
      .where(and(gt(auditLog.id, before), eq(auditLog.action, 'completeness.csv.download')));
    expect(audits).toHaveLength(1);
    const tooLong = await user.get(
      `/api/trials/${trialId}/completeness/adherence.csv?from=2025-01-01&to=2026-06-12`,
    );
    expect(tooLong.statusCode).toBe(400);
  });

  it('keeps the digest opt-in per user, off by default', async () => {
    expect((await user.get(`/api/trials/${trialId}/completeness/digest`)).json()).toEqual({
      subscribed: false,
    });
    expect(
      (
        await user.request('PUT', `/api/trials/${trialId}/completeness/digest`, {
          subscribed: true,
        })
      ).json(),
    ).toEqual({ subscribed: true });
    expect((await user.get(`/api/trials/${trialId}/completeness/digest`)).json()).toEqual({
      subscribed: true,
    });
    expect((await admin.get(`/api/trials/${trialId}/completeness/digest`)).json()).toEqual({
      subscribed: false,
    });
    expect(
      (
        await outsider.request('PUT', `/api/trials/${trialId}/completeness/digest`, {
          subscribed: true,
        })
      ).statusCode,
    ).toBe(404);
  });
  it('after a sync batch adds and updates readings, the grid equals one computed from the raw readings', async () => {
    const db = ctx.database.db;
    const readings = readingsServiceFor(db, () => NOW);
    const owner = { participantId: ids.newYork, teamId };
    await readings.store([
      // New minutes on a day with data, a new day, and a moved hour (offset corrected:
      // New York's 12 June hour becomes 13 June).
      ...heartRateMinutes(owner, at('2026-06-12T12:00:00Z'), 600, NYC),
      ...heartRateMinutes(owner, at('2026-06-14T12:00:00Z'), 90, NYC),
      ...heartRateMinutes(owner, at('2026-06-13T02:00:00Z'), 60, 0),
      dailyValue(owner, '2026-06-14', 'steps', 4321),
      ...cgmReadings({ participantId: ids.cgm, teamId }, at('2026-06-13T00:00:00Z'), 100, 0),
    ]);
    const data = await grid(admin, 30);
    // The day figures of every row, built again from the raw readings (one GROUP BY).
    const fromRaw = createRowsBuilder({
      readings: {
        dailySummaries: (team, participantIds, from, to) =>
          dailySummariesFromReadings(db, team, participantIds, from, to),
        currentOffsets: readings.currentOffsets,
        firstDataDays: readings.firstDataDays,
      },
      devices: { healthOfParticipants: async () => [] },
      clock,
    });
    const measures = (row: CompletenessRow) => ({
      participantId: row.participantId,
      wearMinutes: row.wearMinutes,
      steps: row.steps,
      sleepMinutes: row.sleepMinutes,
      bpReadings: row.bpReadings,
      weightReadings: row.weightReadings,
      cgmReadings: row.cgmReadings,
    });
    const expected = await fromRaw(
      teamId,
      data.rows.map((row) => ({ id: row.participantId, code: row.participantCode })),
      data.days,
      data.thresholds,
    );
    expect(data.rows.map(measures)).toEqual(expected.map(measures));
    const newYork = rowOf(data, 'newYork');
    expect(onDay(data, newYork, 'wearMinutes', '2026-06-12')).toBe(600);
    expect(onDay(data, newYork, 'wearMinutes', '2026-06-13')).toBe(60);
    expect(onDay(data, newYork, 'wearMinutes', '2026-06-14')).toBe(90);
    expect(onDay(data, newYork, 'steps', '2026-06-14')).toBe(4321);
    expect(onDay(data, rowOf(data, 'cgm'), 'cgmReadings', '2026-06-13')).toBe(100);
  });
});
