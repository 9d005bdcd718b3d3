import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATE_MESSAGES, PAGING, PAGING_MESSAGES } from '@trialpulse/shared';
import {
  DEXCOM_MESSAGES,
  OMRON_MESSAGES,
} from '@trialpulse/shared/device-data/device-data.schemas';
import { startAllSimulators, type AllSimulators } from '@trialpulse/provider-simulators';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient } from '../../test/fixtures';
import { addParticipant, createTrial } from '../participants/test-support';
import { signIn } from '../trials/test-support';
import { allowAllBrands, linkAsStaff, simulatorEnv } from '../devices/test-support';
import { readingsServiceFor } from '../sync/test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';

/**
 * Impossible or absurd dates (year 0000, 9999-12-31, 2026-02-30) and over-long filters are
 * refused with the error body's 400 before anything reaches the database or a provider
 * (they answered 500 or 502); a normal filter still finds its rows. Decision 0127.
 */
describe(`device data: bad dates and long filters are refused up front (${MODE})`, () => {
  let sims: AllSimulators;
  let ctx: TestApp;
  let viewer: TestClient;
  let participantId: number;
  let email: string;

  beforeAll(async () => {
    sims = await startAllSimulators();
    ctx = await createTestApp({ env: simulatorEnv(sims) });
    const db = ctx.database.db;
    const teamId = (await createTeam(db, { maxTrials: 10, maxParticipants: 100, hiddenFields: [] }))
      .id;
    await allowAllBrands(db, teamId);
    const adminUser = await createStaffUser(db, { role: 'Admin', teamId });
    const viewerUser = await createStaffUser(db, { role: 'Viewer', teamId });
    const admin = await signIn(ctx.app, db, adminUser);
    viewer = await signIn(ctx.app, db, viewerUser);
    const trial = await createTrial(db, admin, [viewerUser.email]);
    email = `bad-dates-${process.pid}@study.example.org`;
    participantId = (await addParticipant(admin, { trialId: trial.id, email })).participantId;
    for (const brand of ['Omron', 'Fitbit'] as const) {
      const linked = await linkAsStaff(admin, participantId, brand);
      expect(linked.statusCode, linked.body).toBe(200);
    }
    const dexcom = await linkAsStaff(
      admin,
      participantId,
      'Dexcom',
      { account: 'SandboxUser1' },
      { email },
    );
    expect(dexcom.statusCode, dexcom.body).toBe(200);
    const at = new Date('2026-03-01T08:00:00Z');
    await readingsServiceFor(db).store([
      {
        participantId,
        teamId,
        brand: 'Fitbit',
        metricKey: 'steps',
        recordedAt: at,
        value: 4321,
        upstream: 'google-health',
      },
      {
        participantId,
        teamId,
        brand: 'Fitbit',
        metricKey: 'resting_heart_rate',
        recordedAt: at,
        value: 61,
        upstream: 'google-health',
      },
    ]);
  });

  afterAll(async () => {
    await ctx?.close();
    await sims?.close();
  });

  const expect400 = (
    response: {
      statusCode: number;
      body: string;
      json(): { reason: string; message: string; errors: unknown };
    },
    message: string,
  ) => {
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({
      reason: 'VALIDATION_ERROR',
      message,
      displayToUser: true,
    });
  };

  it('Omron: a start date that is not in the calendar (2026-02-30) or in year 0000 is refused, not sent to Omron', async () => {
    for (const since of ['2026-02-30', '0000-01-01', '9999-12-31']) {
      const response = await viewer.post(`/api/getOmronParticipantData/${participantId}`, {
        queryStr: 'bloodpressure',
        since,
        limit: 0,
      });
      expect400(response, OMRON_MESSAGES.since);
    }
  });

  it('Dexcom: dates at the end of the calendar (9999-12-30) or impossible ones are refused, not sent to Dexcom', async () => {
    for (const query of [
      'startDate=9999-12-29&endDate=9999-12-30',
      'startDate=2026-02-30&endDate=2026-03-02',
    ]) {
      const response = await viewer.get(
        `/api/getDexcomParticipantData/${participantId}/${encodeURIComponent(query)}`,
      );
      expect([query, response.statusCode]).toEqual([query, 400]);
      expect(response.json().message).toBe(DEXCOM_MESSAGES.startDate);
    }
    const end = await viewer.get(
      `/api/getDexcomParticipantData/${participantId}/${encodeURIComponent('startDate=2026-01-01&endDate=0000-01-01')}`,
    );
    expect(end.json().message).toBe(DEXCOM_MESSAGES.endDate);
  });

  it('Fitbit: a range ending 9999-12-31, in year 0000 or on Feb 30 is refused', async () => {
    for (const range of [
      '9999-12-31/7d',
      '9999-12-31/1y',
      '2026-01-01/9999-12-31',
      '9999-12-01/9999-12-31',
      '0000-01-01/0000-01-02',
      '2026-02-01/2026-02-30',
    ]) {
      const response = await viewer.get(
        `/api/getFitbitServerParticipantData/${participantId}/${encodeURIComponent(email)}/activities/steps/date/${range}.json`,
      );
      expect([range, response.statusCode]).toEqual([range, 400]);
    }
  });

  it('stored readings: from/to in year 0000, 9999-12-31T24 or on Feb 30 are refused', async () => {
    for (const from of ['0000-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '2101-01-01T00:00:00Z']) {
      const response = await viewer.get(
        `/api/participantReadings/${participantId}/fitbit?pageIndex=0&pageSize=50&from=${encodeURIComponent(from)}`,
      );
      expect400(response, DATE_MESSAGES.dateTime);
    }
    const to = await viewer.get(
      `/api/participantReadings/${participantId}/fitbit?pageIndex=0&pageSize=50&to=${encodeURIComponent('9999-12-31T00:00:00Z')}`,
    );
    expect400(to, DATE_MESSAGES.dateTime);
    const fine = await viewer.get(
      `/api/participantReadings/${participantId}/fitbit?pageIndex=0&pageSize=50&from=${encodeURIComponent('2026-03-01T00:00:00+01:00')}`,
    );
    expect(fine.statusCode, fine.body).toBe(200);
    expect(fine.json().total).toBe(2);
  });

  it('stored readings: a filter past the limit answers 400; a normal one (wildcards literal) still finds its rows', async () => {
    const long = await viewer.get(
      `/api/participantReadings/${participantId}/fitbit?pageIndex=0&pageSize=50&filter=${'x'.repeat(998)}`,
    );
    expect400(long, PAGING_MESSAGES.filter);
    const atLimit = await viewer.get(
      `/api/participantReadings/${participantId}/fitbit?pageIndex=0&pageSize=50&filter=${'x'.repeat(PAGING.maxFilterLength)}`,
    );
    expect(atLimit.statusCode, atLimit.body).toBe(200);
    const steps = await viewer.get(
      `/api/participantReadings/${participantId}/fitbit?pageIndex=0&pageSize=50&filter=STEP`,
    );
    expect(steps.statusCode, steps.body).toBe(200);
    expect(steps.json().rows.map((row: { metricKey: string }) => row.metricKey)).toEqual(['steps']);
    const value = await viewer.get(
      `/api/participantReadings/${participantId}/fitbit?pageIndex=0&pageSize=50&filter=432`,
    );
    expect(value.json().total).toBe(1);
    const wildcard = await viewer.get(
      `/api/participantReadings/${participantId}/fitbit?pageIndex=0&pageSize=50&filter=${encodeURIComponent('%_')}`,
    );
    expect(wildcard.json().total).toBe(0);
  });
});
