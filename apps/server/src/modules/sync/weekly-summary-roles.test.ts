import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '@trialpulse/shared';
import { trialUsers } from '../../db/schema';
import { createStaffUser, signIn, type TestClient } from '../../test/fixtures';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createParticipants, readingsServiceFor } from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const DAY = 86_400_000;

/**
 * Decision 0132: POST /api/fitbitDataLocalDB/{id} is a call of the Fitbit data page, which
 * every staff role opens; it only derives the weekly summary from stored readings, so every
 * role that may see the participant may make it. Trial scoping still applies.
 */
describe(`Fitbit weekly summary POST per role (${MODE})`, () => {
  let t: TestApp;
  let participantId: number;
  const clients = new Map<Role, TestClient>();
  let viewerNotOnTrial: TestClient;
  let otherTeamAdmin: TestClient;
  const steps = 4321;

  beforeAll(async () => {
    t = await createTestApp();
    const db = t.database.db;
    const fixture = await createParticipants(db, 1);
    participantId = fixture.participantIds[0]!;
    const today = Math.floor(Date.now() / DAY) * DAY;
    await readingsServiceFor(db).store([
      {
        teamId: fixture.teamId,
        participantId,
        brand: 'Fitbit',
        upstream: 'google-health',
        metricKey: 'steps',
        recordedAt: new Date(today - DAY),
        value: steps,
      },
    ]);
    for (const role of ROLES) {
      const account = await createStaffUser(db, { role, teamId: fixture.teamId });
      // User and Viewer see only the trials they are on.
      if (role === 'User' || role === 'Viewer')
        await db
          .insert(trialUsers)
          .values({ teamId: fixture.teamId, trialId: fixture.trialId, userId: account.id });
      clients.set(role, await signIn(t.app, db, account));
    }
    viewerNotOnTrial = await signIn(
      t.app,
      db,
      await createStaffUser(db, { role: 'Viewer', teamId: fixture.teamId }),
    );
    const other = await createParticipants(db, 1);
    otherTeamAdmin = await signIn(
      t.app,
      db,
      await createStaffUser(db, { role: 'Admin', teamId: other.teamId }),
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(ROLES.map((role) => [role]))(
    '%s: POST recomputes and answers the summary, GET shows it',
    async (role) => {
      const client = clients.get(role)!;
      const posted = await client.post(`/api/fitbitDataLocalDB/${participantId}`, {
        email: 'x@example.test',
        data: { total_steps_last_7days: 1 },
      });
      expect(posted.statusCode, posted.body).toBe(200);
      expect(posted.json()).toMatchObject({
        participant_id: participantId,
        total_steps_last_7days: steps,
      });
      const got = await client.get(`/api/fitbitDataLocalDB/${participantId}`);
      expect(got.statusCode).toBe(200);
      expect(got.json()).toEqual(posted.json());
    },
  );

  it('a Viewer not on the trial and another team get 404, a signed-out caller no summary', async () => {
    const body = { email: 'x@example.test', data: {} };
    expect(
      (await viewerNotOnTrial.post(`/api/fitbitDataLocalDB/${participantId}`, body)).statusCode,
    ).toBe(404);
    expect(
      (await otherTeamAdmin.post(`/api/fitbitDataLocalDB/${participantId}`, body)).statusCode,
    ).toBe(404);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: `/api/fitbitDataLocalDB/${participantId}`,
      payload: body,
    });
    expect([401, 403]).toContain(anonymous.statusCode);
  });
});
