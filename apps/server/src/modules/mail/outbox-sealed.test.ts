import net from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailOutbox } from '../../db/schema';
import { createManualClock } from '../../lib/clock';
import { TestClient, createStaffUser, createTeam, signIn } from '../../test/fixtures';
import { createTestApp, type TestApp } from '../../test/test-app';
import { solveHumanCheck } from '../human-check/test-support';
import { linkToken, type ReceivedMail } from '../passwords/test-support/mail-inbox';
import { createMailService, mailSettingsFromConfig } from './mail.service';
import { startTestSmtpServer, type TestSmtpServer } from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** A port nothing listens on (yet): the mail server is down. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Decision 0131: while SMTP is unreachable, a mail waiting in the outbox is stored sealed
 * (TOKEN_ENCRYPTION_KEY): a database dump then yields no working link. Delivered later, the
 * mail carries its working link.
 */
describe(`waiting outbox mails are sealed at rest (${MODE})`, () => {
  const clock = createManualClock(new Date());
  let port: number;
  let ctx: TestApp;
  let smtp: TestSmtpServer | undefined;

  beforeAll(async () => {
    port = await freePort();
    ctx = await createTestApp({
      clock,
      env: { SMTP_URL: `smtp://127.0.0.1:${port}`, PUBLIC_URL: 'https://trialpulse.test' },
    });
  });
  afterAll(async () => {
    await ctx?.close();
    await smtp?.close();
  });

  /** Every outbox row as the database holds it (what a dump shows). */
  const rawRows = async () =>
    (
      await ctx.database.db.execute<{ row: string }>(
        sql`SELECT row_to_json(t)::text AS row FROM mail_outbox t ORDER BY id`,
      )
    ).rows.map((r) => r.row);

  /** The deliver step as the mail job runs it, on the app's configuration and clock. */
  const deliver = () =>
    createMailService({
      db: ctx.database.db,
      settings: mailSettingsFromConfig(ctx.config),
      logger: quiet,
      clock,
    }).deliverPending();

  /** The ReceivedMail shape linkToken reads, from the SMTP test server's message. */
  const asInboxMail = (raw: string): ReceivedMail => ({
    to: [],
    raw,
    decoded: raw.replace(/=\r?\n/g, '').replace(/=3D/gi, '='),
  });

  it('a password reset and an invitation queued while SMTP is down: no link in the rows; delivered later, both links work', async () => {
    const db = ctx.database.db;
    const team = await createTeam(db, { hiddenFields: [] });
    const member = await createStaffUser(db, { role: 'User', teamId: team.id });
    const sysAdmin = await signIn(
      ctx.app,
      db,
      await createStaffUser(db, { role: 'Sys_Admin', teamId: team.id }),
    );
    const forgot = await new TestClient(ctx.app).post('/api/auth/forgotPassword', {
      email: member.email,
      recaptchaResponse: await solveHumanCheck(ctx.app),
    });
    expect(forgot.statusCode).toBe(200);
    const invitee = `invitee-${Date.now().toString(36)}@example.org`;
    const invited = await sysAdmin.post('/api/userSignUpPermission/approveSignUp', {
      email: invitee,
      role: 'Admin',
      teamId: team.id,
      teamName: 'x',
    });
    expect(invited.statusCode, invited.body).toBe(200);

    // The request's own delivery attempt failed (connection refused): both wait for a retry.
    await expect
      .poll(
        async () =>
          (
            await db.execute<{ n: number }>(
              sql`SELECT count(*)::int AS n FROM mail_outbox WHERE status = 'pending' AND attempts >= 1`,
            )
          ).rows[0]!.n,
      )
      .toBe(2);
    const rows = await rawRows();
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatch(/"to_address":"/); // the row is real: who and when stay readable
      expect(row).not.toContain('trialpulse.test');
      expect(row).not.toContain('ResetPasswordPage');
      expect(row).not.toContain('SignupValidation');
      expect(row).not.toContain('token=');
    }

    // The mail server comes back; the next run after the back-off delivers both.
    smtp = await startTestSmtpServer({ port });
    clock.advance(2 * 60 * 1000);
    expect(await deliver()).toEqual({ sent: 2, failed: 0 });
    const [first, second] = await smtp.waitForMails(2);
    const byRecipient = new Map([first!, second!].map((mail) => [mail.to[0], mail.raw]));
    const resetToken = linkToken(asInboxMail(byRecipient.get(member.email)!), 'ResetPasswordPage');
    const invitationToken = linkToken(asInboxMail(byRecipient.get(invitee)!), 'SignupValidation');
    const subjects = [first!, second!].map((mail) => mail.headers.subject);
    expect(subjects.every((subject) => subject && !subject.startsWith('sealed:'))).toBe(true);

    const anyone = new TestClient(ctx.app);
    expect(
      (await anyone.post('/api/auth/resetPasswordValidation', { token: resetToken })).statusCode,
    ).toBe(200);
    const grant = await anyone.post('/api/userSignUpPermission/signupRequestValidation', {
      token: invitationToken,
    });
    expect(grant.statusCode).toBe(200);
    expect(grant.json().role).toBe('Admin');
  });

  it('a row queued readable before sealing (an upgrade while SMTP was down) is sealed by the next run and still delivered', async () => {
    await smtp?.close();
    smtp = undefined;
    const link = 'https://trialpulse.test/ResetPasswordPage?token=legacy-token-0123456789';
    const [legacy] = await ctx.database.db
      .insert(mailOutbox)
      .values({
        toAddress: 'legacy@example.org',
        subject: 'Reset your password',
        textBody: `Open ${link}`,
        htmlBody: `<a href="${link}">Reset</a>`,
        template: 'password-reset',
        status: 'pending',
        sendAfter: clock.now(),
      })
      .returning({ id: mailOutbox.id });
    expect(await deliver()).toEqual({ sent: 0, failed: 1 });
    const row = (await rawRows()).find((text) => text.includes(`"id":${legacy!.id},`))!;
    expect(row).not.toContain('legacy-token');
    expect(row).not.toContain('Reset your password');

    smtp = await startTestSmtpServer({ port });
    clock.advance(2 * 60 * 1000);
    expect(await deliver()).toEqual({ sent: 1, failed: 0 });
    const [mail] = await smtp.waitForMails(1);
    expect(mail!.headers.subject).toBe('Reset your password');
    expect(linkToken(asInboxMail(mail!.raw), 'ResetPasswordPage')).toBe('legacy-token-0123456789');
  });
});
