import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FITBIT_DATA_MESSAGES,
  FITBIT_DATA_REASONS,
  datesBetween,
} from '@trialpulse/shared/device-data/fitbit-resource-path';
import { teams } from '../../db/schema';
import { createManualClock } from '../../lib/clock';
import { decryptSecret } from '../../lib/crypto';
import { type AllSimulators } from '@trialpulse/provider-simulators';
import { type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient } from '../../test/fixtures';
import { clearFaults, countRequests, injectFault } from '../../modules/devices/core/test-support';
import { connectionRow, linkAsStaff } from '../../modules/devices/test-support';
import { addParticipant, createTrial } from '../../modules/participants/test-support';
import { signIn } from '../../modules/trials/test-support';
import {
  FITBIT_TESTS_NOW,
  fitbitDataPath,
  linkLegacyFitbit,
  startFitbitDataApp,
} from './test-support';

/**
 * getFitbitServerParticipantData end to end: the app (inject) reads from the Google Health
 * and legacy Fitbit simulators over HTTP through its real clients, and from stored readings.
 */
let sims: AllSimulators;
let ctx: TestApp;
const clock = createManualClock(FITBIT_TESTS_NOW);
const db = () => ctx.database.db;
let teamId: number;
let admin: TestClient;
let user: TestClient;
let trialId: number;
let counter = 0;

const START = '2026-11-01';
const END = '2026-11-07';
const RESOURCES = ['steps', 'distance', 'floors', 'calories'] as const;

beforeAll(async () => {
  ({ sims, ctx, teamId, admin, user, trialId } = await startFitbitDataApp(clock));
});

afterAll(async () => {
  await ctx?.close();
  await sims?.close();
});

beforeEach(async () => {
  for (const sim of [sims.googleHealth, sims.fitbitLegacy]) await clearFaults(sim.baseUrl);
});

async function newParticipant() {
  const email = `fitbit-data-${process.pid}-${++counter}@study.example.org`;
  const added = await addParticipant(admin, { trialId, email });
  return { id: added.participantId, email };
}

/** A participant linked through Google Health (the default upstream). */
async function googleParticipant() {
  const participant = await newParticipant();
  const linked = await linkAsStaff(
    user,
    participant.id,
    'Fitbit',
    {},
    { email: participant.email },
  );
  expect(linked.statusCode, linked.body).toBe(200);
  clock.advance(1000);
  return participant;
}

/** A participant with a legacy Fitbit Web API connection (made before the migration). */
async function legacyParticipant() {
  const participant = await newParticipant();
  await linkLegacyFitbit(ctx, clock, { teamId, participantId: participant.id });
  return participant;
}

async function accessTokenOf(participantId: number) {
  const [row] = await connectionRow(db(), participantId);
  return decryptSecret(row!.accessTokenEncrypted!, ctx.config.TOKEN_ENCRYPTION_KEY);
}

const dataPath = fitbitDataPath;

/** What the Google Health simulator holds for the days, read with the participant's own token. */
async function googleDaily(token: string, dataType: string, start: string, endExclusive: string) {
  const date = (d: string) => {
    const [year, month, day] = d.split('-').map(Number);
    return { date: { year, month, day } };
  };
  const response = await fetch(
    `${sims.googleHealth.baseUrl}/v4/users/me/dataTypes/${dataType}/dataPoints:dailyRollUp`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ range: { start: date(start), end: date(endExclusive) } }),
    },
  );
  expect(response.status).toBe(200);
  type Point = Record<string, unknown> & {
    civilStartTime: { date: { year: number; month: number; day: number } };
  };
  const body = (await response.json()) as { rollupDataPoints?: Point[] };
  const byDate = new Map<string, Record<string, unknown>>();
  for (const point of body.rollupDataPoints ?? []) {
    const { year, month, day } = point.civilStartTime.date;
    const key = Object.keys(point).find((k) => !k.startsWith('civil'))!;
    byDate.set(
      `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
      point[key] as Record<string, unknown>,
    );
  }
  return byDate;
}

const EXPECTED_FROM_GOOGLE: Record<
  (typeof RESOURCES)[number],
  { dataType: string; value: (v: Record<string, unknown> | undefined) => string }
> = {
  steps: { dataType: 'steps', value: (v) => String(Number(v?.countSum ?? 0)) },
  distance: {
    dataType: 'distance',
    value: (v) => String(Math.round(Number(v?.millimetersSum ?? 0) / 10) / 100_000),
  },
  floors: { dataType: 'floors', value: (v) => String(Number(v?.countSum ?? 0)) },
  calories: {
    dataType: 'total-calories',
    value: (v) => String(Math.round(Number(v?.kcalSum ?? 0))),
  },
};

describe('activities daily series from Google Health', () => {
  it.each(RESOURCES)(
    '%s by range: the legacy shape with the simulator values',
    async (resource) => {
      const participant = await googleParticipant();
      const response = await user.get(
        dataPath(participant, `activities/${resource}/date/${START}/${END}.json`),
      );
      expect(response.statusCode, response.body).toBe(200);
      const { dataType, value } = EXPECTED_FROM_GOOGLE[resource];
      const held = await googleDaily(
        await accessTokenOf(participant.id),
        dataType,
        START,
        '2026-11-08',
      );
      expect(held.size).toBeGreaterThan(0);
      expect(response.json()).toEqual({
        [`activities-${resource}`]: datesBetween(START, END).map((dateTime) => ({
          dateTime,
          value: value(held.get(dateTime)),
        })),
      });
    },
  );

  it('by period equals the same range, and a range longer than a rollup is asked in chunks', async () => {
    const participant = await googleParticipant();
    const byPeriod = await user.get(dataPath(participant, `activities/steps/date/${END}/7d.json`));
    const byRange = await user.get(
      dataPath(participant, `activities/steps/date/${START}/${END}.json`),
    );
    expect(byPeriod.statusCode, byPeriod.body).toBe(200);
    expect(byPeriod.json()).toEqual(byRange.json());
    // 15 days of calories: two total-calories rollups (at most 14 days each).
    const calls = countRequests(sims.googleHealth, 'total-calories');
    try {
      const long = await user.get(
        dataPath(participant, 'activities/calories/date/2026-10-24/2026-11-07.json'),
      );
      expect(long.statusCode, long.body).toBe(200);
      expect(long.json()['activities-calories']).toHaveLength(15);
      expect(calls.count).toBe(2);
    } finally {
      calls.stop();
    }
  });

  it('an expired token is refreshed once and the call succeeds', async () => {
    const participant = await googleParticipant();
    await injectFault(sims.googleHealth.baseUrl, { kind: 'expired-token', target: 'api' });
    const tokenCalls = countRequests(sims.googleHealth, '/token');
    try {
      const response = await user.get(
        dataPath(participant, `activities/steps/date/${START}/${END}.json`),
      );
      expect(response.statusCode, response.body).toBe(200);
      expect(tokenCalls.count).toBe(1);
    } finally {
      tokenCalls.stop();
    }
  });

  it("429 answers 'Too Many Requests'", async () => {
    const participant = await googleParticipant();
    await injectFault(sims.googleHealth.baseUrl, {
      kind: 'rate-limit',
      target: 'api',
      times: 'always',
    });
    const response = await user.get(
      dataPath(participant, `activities/steps/date/${START}/${END}.json`),
    );
    expect(response.statusCode).toBe(429);
    expect(response.json()).toMatchObject({
      message: FITBIT_DATA_MESSAGES.tooManyRequests,
      displayToUser: true,
    });
  });

  it("a range without data answers 'Could not find any data!'", async () => {
    const participant = await googleParticipant();
    const response = await user.get(
      dataPath(participant, 'activities/steps/date/2030-01-01/2030-01-07.json'),
    );
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({
      message: FITBIT_DATA_MESSAGES.noData,
      reason: FITBIT_DATA_REASONS.noData,
    });
  });

  it('bad and incomplete paths answer the spec errors', async () => {
    const participant = await googleParticipant();
    const missing = await user.get(dataPath(participant, 'activities/steps/date/2026-11-01'));
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toBe(FITBIT_DATA_MESSAGES.parametersMissing);
    for (const path of [
      'activities/steps/date/2026-11-07/2026-11-01.json',
      'activities/nothing/date/2026-11-01/7d.json',
      'activities/steps/date/2026-13-01/7d.json',
    ]) {
      const bad = await user.get(dataPath(participant, path));
      expect(bad.statusCode, path).toBe(400);
      expect(bad.json().message).toBe(FITBIT_DATA_MESSAGES.badRequest);
    }
  });
});

describe('activities daily series from the legacy Fitbit Web API', () => {
  it.each(RESOURCES)('%s: exactly what the legacy simulator answers', async (resource) => {
    const participant = await legacyParticipant();
    const path = `activities/${resource}/date/${START}/${END}.json`;
    const response = await user.get(dataPath(participant, path));
    expect(response.statusCode, response.body).toBe(200);
    const held = await fetch(`${sims.fitbitLegacy.baseUrl}/1/user/-/${path}`, {
      headers: { authorization: `Bearer ${await accessTokenOf(participant.id)}` },
    });
    expect(held.status).toBe(200);
    const body = (await held.json()) as Record<string, unknown[]>;
    expect(body[`activities-${resource}`]).toHaveLength(7);
    expect(response.json()).toEqual(body);
  });

  it("an expired token is refreshed once; 429 answers 'Too Many Requests'", async () => {
    const participant = await legacyParticipant();
    await injectFault(sims.fitbitLegacy.baseUrl, { kind: 'expired-token', target: 'api' });
    const tokenCalls = countRequests(sims.fitbitLegacy, '/oauth2/token');
    try {
      const response = await user.get(
        dataPath(participant, `activities/floors/date/${END}/1w.json`),
      );
      expect(response.statusCode, response.body).toBe(200);
      expect(tokenCalls.count).toBe(1);
    } finally {
      tokenCalls.stop();
    }
    await injectFault(sims.fitbitLegacy.baseUrl, {
      kind: 'rate-limit',
      target: 'api',
      times: 'always',
    });
    const limited = await user.get(dataPath(participant, `activities/floors/date/${END}/1w.json`));
    expect(limited.statusCode).toBe(429);
    expect(limited.json().message).toBe(FITBIT_DATA_MESSAGES.tooManyRequests);
  });
});

// Stored readings (steps, distance, floors, calories and the other stored families), stored by
// the real sync from what the simulator holds, are compared with the live answers in
// fitbit-data-resources.test.ts ('stored readings').

describe('access and the email segment', () => {
  it('a Viewer of the trial may read; a Viewer or User of another trial and another team get 404', async () => {
    const path = `activities/steps/date/${START}/${END}.json`;
    const viewerInTrial = await createStaffUser(db(), { role: 'Viewer', teamId });
    const viewerElsewhere = await createStaffUser(db(), { role: 'Viewer', teamId });
    const viewersTrial = await createTrial(db(), admin, [viewerInTrial.email]);
    await createTrial(db(), admin, [viewerElsewhere.email]);
    const email = `fitbit-data-${process.pid}-${++counter}@study.example.org`;
    const participant = {
      id: (await addParticipant(admin, { trialId: viewersTrial.id, email })).participantId,
      email,
    };
    const linked = await linkAsStaff(admin, participant.id, 'Fitbit', {}, { email });
    expect(linked.statusCode, linked.body).toBe(200);
    clock.advance(1000);

    const viewer = await signIn(ctx.app, db(), viewerInTrial);
    const allowed = await viewer.get(dataPath(participant, path));
    expect(allowed.statusCode, allowed.body).toBe(200);
    expect(allowed.json()['activities-steps']).toHaveLength(7);
    for (const other of [await signIn(ctx.app, db(), viewerElsewhere), user]) {
      const refused = await other.get(dataPath(participant, path));
      expect(refused.statusCode).toBe(404);
      expect(refused.body).not.toContain('activities-steps');
    }
    const otherTeam = (await createTeam(db(), { hiddenFields: [] })).id;
    const stranger = await signIn(
      ctx.app,
      db(),
      await createStaffUser(db(), { role: 'Admin', teamId: otherTeam }),
    );
    const foreign = await stranger.get(dataPath(participant, path));
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).not.toContain('activities-steps');
  });

  it('a wrong email is refused; with emails hidden the segment is not compared; it never reaches the logs', async () => {
    const participant = await googleParticipant();
    const path = `activities/steps/date/${START}/${END}.json`;
    const wrong = await user.get(
      dataPath({ ...participant, email: 'someone-else@study.example.org' }, path),
    );
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toBe(FITBIT_DATA_MESSAGES.badRequest);

    // The same participant's team hiding emails: staff have no email to send.
    await db()
      .update(teams)
      .set({ hiddenFields: ['email', 'notes'] })
      .where(eq(teams.id, teamId));
    try {
      const hiddenUser = await signIn(
        ctx.app,
        db(),
        await createStaffUser(db(), { role: 'Admin', teamId }),
      );
      const anyEmail = await hiddenUser.get(dataPath({ ...participant, email: 'hidden' }, path));
      expect(anyEmail.statusCode, anyEmail.body).toBe(200);
    } finally {
      await db().update(teams).set({ hiddenFields: [] }).where(eq(teams.id, teamId));
    }
    // Every data call of the run (every participant) is logged with the email segment redacted.
    const dataLines = ctx
      .logLines()
      .filter((line) => line.includes('getFitbitServerParticipantData'));
    expect(dataLines.length).toBeGreaterThan(0);
    for (const line of dataLines) expect(line).not.toMatch(/@|%40/);
    const logs = ctx.logLines().join('\n');
    expect(logs).not.toContain(participant.email);
    expect(logs).not.toContain(encodeURIComponent(participant.email));
  });
});
