import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/client';
import { createTestApp, type TestApp } from '../../test/test-app';
import { TestClient, createStaffUser, createTeam, signIn } from '../../test/fixtures';
import { solveHumanCheck } from '../human-check/test-support';
import { allowAllBrands } from '../devices/test-support';
import { simulatorEnvironment } from '@trialpulse/provider-simulators/embedded';
import { addParticipant, createTrial } from '../participants/test-support';
import { linkToken, startMailInbox, type MailInbox } from '../passwords/test-support/mail-inbox';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';

/** Every row of every table (and every schema: pg-boss's too), as text: what a dump holds. */
async function dumpDatabase(db: Db): Promise<string> {
  const tables = await db.execute<{ schema: string; name: string }>(sql`
    SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
    WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`);
  const parts: string[] = [];
  for (const { schema, name } of tables.rows) {
    const rows = await db.execute<{ row: string }>(
      sql`SELECT row_to_json(t)::text AS row FROM ${sql.identifier(schema)}.${sql.identifier(name)} t`,
    );
    for (const { row } of rows.rows) parts.push(`${schema}.${name} ${row}`);
  }
  return parts.join('\n');
}

/**
 * Issue 12.3: the mail outbox holds no usable secret at rest. With SMTP configured (as in
 * production), a reset, an invitation and a consent mail are delivered; afterwards a dump of
 * the whole database contains none of the tokens those mails carried, while the API still
 * accepts them (they are real, live tokens).
 */
describe(`mail outbox at rest (${MODE})`, () => {
  let inbox: MailInbox;
  let ctx: TestApp;
  beforeAll(async () => {
    inbox = await startMailInbox();
    // Providers configured (consent mails need a configured brand); none is called here.
    const providers = simulatorEnvironment({
      googleHealth: 'http://127.0.0.1:9',
      fitbitLegacy: 'http://127.0.0.1:9',
      omron: 'http://127.0.0.1:9',
      dexcom: 'http://127.0.0.1:9',
    });
    ctx = await createTestApp({
      env: { ...providers, SMTP_URL: inbox.url, PUBLIC_URL: 'https://trialpulse.test' },
    });
  });
  afterAll(async () => {
    await ctx?.close();
    await inbox?.close();
  });

  it('after reset, invitation and consent mails a database dump holds no token the API accepts', async () => {
    const db = ctx.database.db;
    const team = await createTeam(db, { hiddenFields: [] });
    await allowAllBrands(db, team.id);
    const sysAdmin = await createStaffUser(db, { role: 'Sys_Admin', teamId: team.id });
    const member = await createStaffUser(db, { role: 'User', teamId: team.id });
    const admin = await signIn(ctx.app, db, sysAdmin);

    // Password reset.
    const forgot = await new TestClient(ctx.app).post('/api/auth/forgotPassword', {
      email: member.email,
      recaptchaResponse: await solveHumanCheck(ctx.app),
    });
    expect(forgot.statusCode).toBe(200);
    const resetToken = linkToken(await inbox.waitFor(member.email), 'ResetPasswordPage');

    // Admin invitation.
    const invitee = `invitee-${Date.now().toString(36)}@example.org`;
    const invited = await admin.post('/api/userSignUpPermission/approveSignUp', {
      email: invitee,
      role: 'Admin',
      teamId: team.id,
      teamName: 'x',
    });
    expect(invited.statusCode, invited.body).toBe(200);
    const invitationToken = linkToken(await inbox.waitFor(invitee), 'SignupValidation');

    // Participant consent link.
    const trial = await createTrial(db, admin);
    const participantEmail = `participant-${Date.now().toString(36)}@study.example.org`;
    const participant = await addParticipant(admin, { trialId: trial.id, email: participantEmail });
    const consent = await admin.post('/api/participantConsentEmail', {
      participantId: participant.participantId,
      brand: 'Fitbit',
    });
    expect(consent.statusCode, consent.body).toBe(200);
    const consentMail = await inbox.waitFor(participantEmail);
    const consentToken = new URL(
      /https:\/\/trialpulse\.test\/PAFitbitConsentPage\?\S+/.exec(consentMail.decoded)![0],
    ).searchParams.get('token')!;
    expect(consentToken.length).toBeGreaterThanOrEqual(40);

    // Delivery has been recorded for all three (the outbox rows are 'sent').
    await expect
      .poll(
        async () =>
          (
            await db.execute<{ n: number }>(
              sql`SELECT count(*)::int AS n FROM mail_outbox WHERE status <> 'sent'`,
            )
          ).rows[0]!.n,
      )
      .toBe(0);

    const dump = await dumpDatabase(db);
    expect(dump).toContain(member.email); // the dump is real: it holds the rows
    for (const token of [resetToken, invitationToken, consentToken]) {
      expect(dump).not.toContain(token);
      expect(dump).not.toContain(encodeURIComponent(token));
    }

    // The tokens are live: the API accepts them (so finding them in a dump would be a takeover).
    const anyone = new TestClient(ctx.app);
    expect(
      (await anyone.post('/api/auth/resetPasswordValidation', { token: resetToken })).statusCode,
    ).toBe(200);
    const grants = await anyone.post('/api/userSignUpPermission/signupRequestValidation', {
      token: invitationToken,
    });
    expect(grants.statusCode).toBe(200);
    expect(grants.json().role).toBe('Admin');
  });
});
