import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTACT_MESSAGES, errorBodySchema, HUMAN_CHECK_MESSAGE } from '@trialpulse/shared';
import { auditLog, contactMessages, mailOutbox } from '../../db/schema';
import { createTestApp, csrfSession, type TestApp } from '../../test/test-app';
import { solveHumanCheck } from '../human-check/test-support';
import { startTestSmtpServer, type TestSmtpServer } from '../mail/test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const SUPPORT = 'help-desk@trialpulse.test';

const validForm = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada.writer@example.test',
  subject: 'Export question',
  message: 'How do I export a whole trial at once?',
};

describe(`POST /api/contactUs (${MODE})`, () => {
  let ctx: TestApp;
  let smtp: TestSmtpServer;
  let csrf: { token: string; cookie: string };
  let ipCounter = 0;
  /** Each test writes from its own address, so the per-IP limit only meets the test about it. */
  const nextIp = () => `198.51.100.${++ipCounter}`;

  beforeAll(async () => {
    smtp = await startTestSmtpServer();
    ctx = await createTestApp({ env: { SMTP_URL: smtp.url, SUPPORT_EMAIL: SUPPORT } });
    csrf = await csrfSession(ctx.app);
  });
  afterAll(async () => {
    await ctx?.close();
    await smtp?.close();
  });

  const post = (payload: object, remoteAddress = nextIp()) =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/contactUs',
      headers: { cookie: csrf.cookie, 'x-csrf-token': csrf.token },
      payload,
      remoteAddress,
    });
  const count = async (table: typeof contactMessages | typeof mailOutbox) =>
    Number(
      (
        (await ctx.database.db.select({ n: sql<number>`count(*)::int` }).from(table))[0] as {
          n: number;
        }
      ).n,
    );
  const stored = async () => ({
    messages: await count(contactMessages),
    mails: await count(mailOutbox),
  });

  it('stores the message, audits it and emails the support address', async () => {
    const response = await post({
      ...validForm,
      recaptchaResponse: await solveHumanCheck(ctx.app),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, message: CONTACT_MESSAGES.sent });

    const rows = await ctx.database.db.select().from(contactMessages);
    expect(rows).toEqual([expect.objectContaining({ ...validForm, id: expect.any(Number) })]);
    const id = rows[0]!.id;

    const audit = await ctx.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'contact.message'));
    expect(audit).toEqual([
      expect.objectContaining({
        entityType: 'contact_message',
        entityId: String(id),
        requestId: response.headers['x-request-id'],
      }),
    ]);
    expect(JSON.stringify(audit)).not.toContain(validForm.message);
    expect(JSON.stringify(audit)).not.toContain(validForm.email);

    const [mail] = await smtp.waitForMails(1);
    expect(mail!.to).toEqual([SUPPORT]);
    expect(mail!.headers.to).toBe(SUPPORT);
    expect(mail!.headers.subject).toBe(`Contact form: ${validForm.subject}`);
    expect(mail!.body).toContain(`Reply to: ${validForm.email}`);
    expect(mail!.body).toContain('From: Ada Lovelace');
    expect(mail!.body).toContain(validForm.message);
    await waitFor(
      async () => (await ctx.database.db.select().from(mailOutbox))[0]?.status === 'sent',
    );
    expect(await ctx.database.db.select().from(mailOutbox)).toEqual([
      expect.objectContaining({ template: 'contact-message', status: 'sent', attempts: 1 }),
    ]);
  });

  const long = (n: number) => 'x'.repeat(n);
  const invalidCases: [string, object, string][] = [
    ['first name missing', { firstName: undefined }, 'First Name is required'],
    ['first name empty', { firstName: '  ' }, 'First Name is required'],
    ['first name too short', { firstName: 'A' }, 'First Name must be between 2 and 50 characters'],
    [
      'first name too long',
      { firstName: long(51) },
      'First Name must be between 2 and 50 characters',
    ],
    ['last name missing', { lastName: undefined }, 'Last name is required'],
    ['last name empty', { lastName: '' }, 'Last name is required'],
    ['last name too short', { lastName: 'L' }, 'Last name must be between 2 and 50 characters'],
    ['last name too long', { lastName: long(51) }, 'Last name must be between 2 and 50 characters'],
    ['email missing', { email: undefined }, 'Email is required'],
    ['email empty', { email: '' }, 'Email is required'],
    ['email invalid', { email: 'ada-at-example' }, 'Email is invalid'],
    ['subject missing', { subject: undefined }, CONTACT_MESSAGES.subjectRequired],
    ['subject empty', { subject: '' }, CONTACT_MESSAGES.subjectRequired],
    ['subject too short', { subject: 'Hi' }, CONTACT_MESSAGES.subjectLength],
    ['subject too long', { subject: long(51) }, CONTACT_MESSAGES.subjectLength],
    ['message missing', { message: undefined }, CONTACT_MESSAGES.messageRequired],
    ['message empty', { message: '' }, CONTACT_MESSAGES.messageRequired],
    ['message too short', { message: 'Too short' }, CONTACT_MESSAGES.messageLength],
    ['message too long', { message: long(301) }, CONTACT_MESSAGES.messageLength],
  ];

  it.each(invalidCases)(
    '%s → 400 with the spec message, nothing stored',
    async (_name, change, message) => {
      const before = await stored();
      const response = await post({
        ...validForm,
        ...change,
        recaptchaResponse: 'not checked before the form is valid',
      });
      expect(response.statusCode).toBe(400);
      const body = errorBodySchema.parse(response.json());
      expect(body).toMatchObject({ message, displayToUser: true, reason: 'VALIDATION_ERROR' });
      // The first error is the spec message; an empty field may also fail the length rule.
      const field = Object.keys(change)[0];
      expect(body.errors?.[0]).toEqual({ field, message });
      expect(body.errors?.every((error) => error.field === field)).toBe(true);
      expect(await stored()).toEqual(before);
    },
  );

  it('limits are the spec’s: 2 and 50 characters for names, 3 and 50 for the subject, 10 and 300 for the message', async () => {
    const edges = { firstName: 'Al', lastName: long(50), subject: 'Hey', message: long(300) };
    const response = await post({
      ...validForm,
      ...edges,
      recaptchaResponse: await solveHumanCheck(ctx.app),
    });
    expect(response.statusCode).toBe(200);
    const shortMessage = await post({
      ...validForm,
      message: long(10),
      recaptchaResponse: await solveHumanCheck(ctx.app),
    });
    expect(shortMessage.statusCode).toBe(200);
  });

  it('every failing field is listed in `errors`; the first one is the message', async () => {
    const response = await post({});
    expect(response.statusCode).toBe(400);
    const body = errorBodySchema.parse(response.json());
    expect(body.message).toBe('First Name is required');
    expect(body.errors).toEqual([
      { field: 'firstName', message: 'First Name is required' },
      { field: 'lastName', message: 'Last name is required' },
      { field: 'email', message: 'Email is required' },
      { field: 'subject', message: CONTACT_MESSAGES.subjectRequired },
      { field: 'message', message: CONTACT_MESSAGES.messageRequired },
    ]);
  });

  it('an invalid form does not spend the human-check token', async () => {
    const token = await solveHumanCheck(ctx.app);
    expect((await post({ ...validForm, subject: '', recaptchaResponse: token })).statusCode).toBe(
      400,
    );
    expect((await post({ ...validForm, recaptchaResponse: token })).statusCode).toBe(200);
  });

  const humanCheckFailures: [string, () => Promise<unknown>][] = [
    ['missing', async () => undefined],
    ['empty', async () => ''],
    ['garbage', async () => 'definitely-not-a-token'],
    ['the spec’s fallback token', async () => 'fallback-token'],
    [
      'base64 JSON that is no solution',
      async () => Buffer.from(JSON.stringify({ algorithm: 'SHA-256' })).toString('base64'),
    ],
    ['not a string', async () => 12345],
  ];

  it.each(humanCheckFailures)(
    'human check %s → 400 HUMAN_CHECK_FAILED, nothing stored',
    async (_name, token) => {
      const before = await stored();
      const response = await post({ ...validForm, recaptchaResponse: await token() });
      expect(response.statusCode).toBe(400);
      const body = errorBodySchema.parse(response.json());
      if (typeof (await token()) === 'number') {
        expect(body.reason).toBe('VALIDATION_ERROR');
      } else {
        expect(body).toMatchObject({
          message: HUMAN_CHECK_MESSAGE,
          displayToUser: true,
          reason: 'HUMAN_CHECK_FAILED',
        });
      }
      expect(await stored()).toEqual(before);
    },
  );

  it('a replayed human-check token is refused and stores nothing more', async () => {
    const token = await solveHumanCheck(ctx.app);
    expect((await post({ ...validForm, recaptchaResponse: token })).statusCode).toBe(200);
    const before = await stored();
    const replay = await post({ ...validForm, recaptchaResponse: token });
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject({
      message: HUMAN_CHECK_MESSAGE,
      reason: 'HUMAN_CHECK_FAILED',
    });
    expect(await stored()).toEqual(before);
  });

  it('needs the CSRF token', async () => {
    const before = await stored();
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/api/contactUs',
      headers: { cookie: csrf.cookie },
      payload: { ...validForm, recaptchaResponse: await solveHumanCheck(ctx.app) },
    });
    expect(response.statusCode).toBe(403);
    expect(await stored()).toEqual(before);
  });

  it('5 requests per 15 minutes per IP, then 429 with Retry-After; other addresses still pass', async () => {
    const ip = nextIp();
    for (let n = 0; n < 5; n += 1)
      expect((await post({ ...validForm, message: '' }, ip)).statusCode).toBe(400);
    const before = await stored();
    const limited = await post(
      { ...validForm, recaptchaResponse: await solveHumanCheck(ctx.app) },
      ip,
    );
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect(errorBodySchema.parse(limited.json())).toMatchObject({
      reason: 'RATE_LIMITED',
      displayToUser: true,
    });
    expect(await stored()).toEqual(before);

    const other = await post({ ...validForm, recaptchaResponse: await solveHumanCheck(ctx.app) });
    expect(other.statusCode).toBe(200);
  });

  it('logs carry no address, subject or message text, and no human-check token', async () => {
    // Let the deliveries started by earlier tests finish and log.
    await waitFor(async () =>
      (await ctx.database.db.select().from(mailOutbox)).every((row) => row.status === 'sent'),
    );
    const logs = ctx.logLines().join('\n');
    expect(logs).toContain('mail sent');
    expect(logs).toContain('human check failed');
    for (const secret of [
      validForm.email,
      SUPPORT,
      validForm.message,
      validForm.subject,
      'Lovelace',
      'fallback-token',
    ]) {
      expect(logs).not.toContain(secret);
    }
    expect(logs).not.toMatch(/[\w.-]+@[\w-]+\.test/);
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
