import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { mailOutbox } from '../../db/schema';
import { startJobs, type JobLogger } from '../../jobs/boss';
import { createManualClock } from '../../lib/clock';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createTestDatabase } from '../../test/test-database';
import { createMailDeliverJob, MAIL_DELIVER } from './mail.job';
import { testServices } from '../../test/test-services';
import {
  backoffMs,
  createMailService,
  MAIL_MAX_ATTEMPTS,
  MAIL_STALE_SENDING_MS,
  purgeSentMails,
  type MailSettings,
  type OutgoingMail,
} from './mail.service';
import { freePort, startTestSmtpServer, type TestSmtpServer } from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const FROM = 'TrialPulse <no-reply@trialpulse.test>';

type LogEntry = { level: string; obj: Record<string, unknown>; msg?: string };
function captureLogger(): JobLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const push = (level: string) => (obj: object, msg?: string) =>
    entries.push({ level, obj: obj as Record<string, unknown>, msg });
  return { entries, info: push('info'), warn: push('warn'), error: push('error') };
}

const mail = (n: number, overrides: Partial<OutgoingMail> = {}): OutgoingMail => ({
  to: `person${n}@example.test`,
  subject: `Subject ${n}`,
  text: `Body ${n} with a code 123456`,
  template: 'test-template',
  ...overrides,
});

describe(`mail outbox and delivery (${MODE})`, () => {
  let database: Database;
  const servers: TestSmtpServer[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    await database.db.delete(mailOutbox);
  });
  afterAll(async () => {
    await database?.close();
  });

  const smtp = async (port?: number) => {
    const server = await startTestSmtpServer({ port });
    servers.push(server);
    return server;
  };
  const outbox = () => database.db.select().from(mailOutbox).orderBy(mailOutbox.id);

  it('enqueue belongs to the caller’s transaction: a rollback leaves no mail', async () => {
    const service = createMailService({
      db: database.db,
      settings: { from: FROM },
      logger: captureLogger(),
    });
    await expect(
      database.db.transaction(async (tx) => {
        await service.enqueue(tx, mail(1));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await outbox()).toEqual([]);

    const id = await database.db.transaction((tx) => service.enqueue(tx, mail(2)));
    expect(await outbox()).toEqual([
      expect.objectContaining({ id, status: 'pending', attempts: 0 }),
    ]);
    await expect(service.enqueue(database.db, mail(3, { to: 'not an address' }))).rejects.toThrow();
  });

  it('sends over SMTP: envelope, headers and body as queued, then marked sent', async () => {
    const server = await smtp();
    const logger = captureLogger();
    const service = createMailService({
      db: database.db,
      settings: { smtpUrl: server.url, from: FROM },
      logger,
    });
    const id = await service.enqueue(database.db, mail(1, { html: '<p>Body 1</p>' }));

    expect(await service.deliverPending()).toEqual({ sent: 1, failed: 0 });
    const [received] = await server.waitForMails(1);
    expect(received!.to).toEqual(['person1@example.test']);
    expect(received!.from).toBe('no-reply@trialpulse.test');
    expect(received!.headers.subject).toBe('Subject 1');
    expect(received!.headers['message-id']).toMatch(
      new RegExp(`^<outbox-${id}\\.\\d+@trialpulse\\.test>$`),
    );
    expect(received!.raw).toContain('Body 1 with a code 123456');
    expect(received!.raw).toContain('<p>Body 1</p>');
    expect(await outbox()).toEqual([
      expect.objectContaining({
        id,
        status: 'sent',
        attempts: 1,
        lastError: null,
        sentAt: expect.any(Date),
      }),
    ]);
    // Logs name the outbox id and template, never the address or the body.
    expect(logger.entries).toEqual([
      {
        level: 'info',
        obj: { outboxId: id, template: 'test-template', attempts: 1 },
        msg: 'mail sent',
      },
    ]);
  });

  it('SMTP down: the mail stays pending with the attempt counted; later it is delivered once', async () => {
    const port = await freePort();
    const clock = createManualClock(new Date('2026-11-21T10:00:00Z'));
    const logger = captureLogger();
    const service = createMailService({
      db: database.db,
      settings: { smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM },
      logger,
      clock,
    });
    const id = await service.enqueue(database.db, mail(1));

    expect(await service.deliverPending()).toEqual({ sent: 0, failed: 1 });
    let [row] = await outbox();
    expect(row).toMatchObject({ id, status: 'pending', attempts: 1, sentAt: null });
    expect(row!.lastError).toMatch(/ECONNREFUSED|ECONNECTION|ESOCKET/);
    expect(row!.sendAfter.getTime()).toBe(clock.now().getTime() + backoffMs(1));
    expect(JSON.stringify(logger.entries)).not.toContain('person1@example.test');

    // Not due yet: nothing is tried before the backoff has passed.
    const server = await smtp(port);
    expect(await service.deliverPending()).toEqual({ sent: 0, failed: 0 });
    clock.advance(backoffMs(1));
    expect(await service.deliverPending()).toEqual({ sent: 1, failed: 0 });
    await server.waitForMails(1);
    [row] = await outbox();
    expect(row).toMatchObject({ id, status: 'sent', attempts: 2, lastError: null });

    clock.advance(60 * 60 * 1000);
    expect(await service.deliverPending()).toEqual({ sent: 0, failed: 0 });
    expect(server.received).toHaveLength(1);
  });

  it('two workers delivering at the same time send every mail exactly once', async () => {
    const server = await smtp();
    const settings: MailSettings = { smtpUrl: server.url, from: FROM };
    const workerA = createMailService({ db: database.db, settings, logger: captureLogger() });
    const workerB = createMailService({ db: database.db, settings, logger: captureLogger() });
    const ids: number[] = [];
    for (let n = 0; n < 12; n += 1) ids.push(await workerA.enqueue(database.db, mail(n)));

    const results = await Promise.all([
      workerA.deliverPending(),
      workerB.deliverPending(),
      workerA.deliverPending(),
    ]);
    expect(results.reduce((sum, result) => sum + result.sent, 0)).toBe(12);
    expect(results.reduce((sum, result) => sum + result.failed, 0)).toBe(0);

    await server.waitForMails(12);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const messageIds = server.received.map((received) => received.headers['message-id']);
    expect(messageIds).toHaveLength(12);
    expect(new Set(messageIds).size).toBe(12);
    const rows = await outbox();
    expect(rows.map((row) => [row.status, row.attempts])).toEqual(ids.map(() => ['sent', 1]));
  });

  it('gives up after the last attempt: status failed, kept, never retried', async () => {
    const port = await freePort();
    const clock = createManualClock(new Date('2026-11-21T10:00:00Z'));
    const service = createMailService({
      db: database.db,
      settings: { smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM },
      logger: captureLogger(),
      clock,
    });
    const id = await service.enqueue(database.db, mail(1));
    for (let attempt = 1; attempt <= MAIL_MAX_ATTEMPTS; attempt += 1) {
      expect(await service.deliverPending()).toEqual({ sent: 0, failed: 1 });
      clock.advance(backoffMs(attempt));
    }
    expect(await outbox()).toEqual([
      expect.objectContaining({ id, status: 'failed', attempts: MAIL_MAX_ATTEMPTS }),
    ]);
    clock.advance(24 * 60 * 60 * 1000);
    expect(await service.deliverPending()).toEqual({ sent: 0, failed: 0 });
  });

  it('a mail left in "sending" by a dead worker is claimed again once stale', async () => {
    const server = await smtp();
    const clock = createManualClock(new Date('2026-11-21T10:00:00Z'));
    const service = createMailService({
      db: database.db,
      settings: { smtpUrl: server.url, from: FROM },
      logger: captureLogger(),
      clock,
    });
    const id = await service.enqueue(database.db, mail(1));
    await database.db
      .update(mailOutbox)
      .set({ status: 'sending', attempts: 1, updatedAt: clock.now() })
      .where(eq(mailOutbox.id, id));

    expect(await service.deliverPending()).toEqual({ sent: 0, failed: 0 });
    clock.advance(MAIL_STALE_SENDING_MS + 1);
    expect(await service.deliverPending()).toEqual({ sent: 1, failed: 0 });
    await server.waitForMails(1);
    expect(await outbox()).toEqual([expect.objectContaining({ id, status: 'sent', attempts: 2 })]);
  });

  it('without SMTP_URL the mail stays in the outbox, marked sent, and the log names template and id only', async () => {
    const logger = captureLogger();
    const service = createMailService({ db: database.db, settings: { from: FROM }, logger });
    const id = await service.enqueue(database.db, mail(7));
    expect(await service.deliverPending()).toEqual({ sent: 1, failed: 0 });
    expect(await outbox()).toEqual([
      expect.objectContaining({ id, status: 'sent', textBody: mail(7).text }),
    ]);
    expect(logger.entries).toEqual([
      {
        level: 'info',
        obj: { outboxId: id, template: 'test-template' },
        msg: 'mail queued in the outbox (no SMTP transport configured)',
      },
    ]);
  });

  it('a database failure is logged (without data) and never thrown to the caller', async () => {
    const logger = captureLogger();
    const broken = {
      update: () => {
        throw Object.assign(new Error('connection lost: person1@example.test'), { code: '08006' });
      },
      select: () => database.db.select(),
    } as unknown as Database['db'];
    const service = createMailService({ db: broken, settings: { from: FROM }, logger });
    expect(await service.deliverPending()).toEqual({ sent: 0, failed: 0 });
    expect(logger.entries).toEqual([
      expect.objectContaining({
        level: 'error',
        obj: expect.objectContaining({ errorCode: '08006' }),
      }),
    ]);
    expect(JSON.stringify(logger.entries)).not.toContain('person1@example.test');
  });

  it('sent mails are purged after 7 days; pending and failed ones are kept', async () => {
    const service = createMailService({
      db: database.db,
      settings: { from: FROM },
      logger: captureLogger(),
    });
    const oldId = await service.enqueue(database.db, mail(1));
    const recentId = await service.enqueue(database.db, mail(2));
    const pendingId = await service.enqueue(database.db, mail(3));
    const now = new Date();
    const day = 24 * 60 * 60 * 1000;
    await database.db
      .update(mailOutbox)
      .set({ status: 'sent', sentAt: new Date(now.getTime() - 8 * day) })
      .where(eq(mailOutbox.id, oldId));
    await database.db
      .update(mailOutbox)
      .set({ status: 'sent', sentAt: new Date(now.getTime() - 6 * day) })
      .where(eq(mailOutbox.id, recentId));
    expect(await purgeSentMails(database.db, now)).toBe(1);
    expect((await outbox()).map((row) => row.id)).toEqual([recentId, pendingId]);
  });

  it('the mail.deliver job (pg-boss) retries what is due', async () => {
    const server = await smtp();
    const logger = captureLogger();
    const jobs = await startJobs({
      database,
      logger,
      schedule: false,
      pollingIntervalSeconds: 0.5,
      jobs: [createMailDeliverJob()],
      // The process's services, delivering through this SMTP server.
      services: testServices(database, { env: { SMTP_URL: server.url, MAIL_FROM: FROM } }),
    });
    try {
      // As if an earlier attempt had failed and its backoff has passed.
      const service = createMailService({
        db: database.db,
        settings: { from: FROM },
        logger: captureLogger(),
      });
      const id = await service.enqueue(database.db, mail(1));
      await database.db
        .update(mailOutbox)
        .set({ attempts: 3, lastError: 'ECONNECTION' })
        .where(eq(mailOutbox.id, id));

      expect(await jobs.boss.send(MAIL_DELIVER, {})).toBeTruthy();
      const [received] = await server.waitForMails(1, 60_000);
      expect(received!.to).toEqual(['person1@example.test']);
      await waitFor(async () => (await outbox())[0]?.status === 'sent');
      expect(await outbox()).toEqual([
        expect.objectContaining({ id, status: 'sent', attempts: 4 }),
      ]);
      expect(logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
    } finally {
      await jobs.stop();
    }
    const count = await database.db.execute(
      sql`select count(*)::int as n from mail_outbox where status = 'sent'`,
    );
    expect(count.rows[0]).toEqual({ n: 1 });
  });
});

describe(`dev mailbox (${MODE})`, () => {
  let demo: TestApp;
  let testMode: TestApp;
  const mailLog = captureLogger();

  beforeAll(async () => {
    demo = await createTestApp({ env: { TRIALPULSE_MODE: 'demo' } });
    testMode = await createTestApp();
  });
  afterAll(async () => {
    await demo?.close();
    await testMode?.close();
  });

  it('demo mode: lists the latest 50 outbox mails, newest first, and shows one', async () => {
    const ids: number[] = [];
    const outbox = createMailService({
      db: demo.database.db,
      settings: { from: FROM },
      logger: mailLog,
    });
    for (let n = 0; n < 52; n += 1) ids.push(await outbox.enqueue(demo.database.db, mail(n)));
    await outbox.deliverPending();

    const list = await demo.app.inject({ method: 'GET', url: '/api/dev/mailbox' });
    expect(list.statusCode).toBe(200);
    expect(list.headers['cache-control']).toBe('no-store');
    const mails = list.json();
    expect(mails).toHaveLength(50);
    expect(mails[0]).toEqual({
      id: ids[51],
      to: 'person51@example.test',
      subject: 'Subject 51',
      text: 'Body 51 with a code 123456',
      html: null,
      template: 'test-template',
      status: 'sent',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    const one = await demo.app.inject({ method: 'GET', url: `/api/dev/mailbox/${ids[3]}` });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ id: ids[3], to: 'person3@example.test' });
    const missing = await demo.app.inject({ method: 'GET', url: '/api/dev/mailbox/999999' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().reason).toBe('NOT_FOUND'); // a missing mail, not a missing route
  });

  it('demo mode: a client that is not on this machine gets 404, as if the route did not exist', async () => {
    const response = await demo.app.inject({
      method: 'GET',
      url: '/api/dev/mailbox',
      remoteAddress: '192.0.2.10',
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({
      message: 'Route GET /api/dev/mailbox not found.',
      reason: 'ROUTE_NOT_FOUND',
    });
    expect(response.body).not.toContain('example.test');
  });

  it('outside demo mode the mailbox does not exist', async () => {
    const outbox = createMailService({
      db: testMode.database.db,
      settings: { from: FROM },
      logger: mailLog,
    });
    await outbox.enqueue(testMode.database.db, mail(1));
    for (const url of ['/api/dev/mailbox', '/api/dev/mailbox/1']) {
      const response = await testMode.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(404);
      expect(response.json().reason).toBe('ROUTE_NOT_FOUND');
    }
  });

  it('logs carry no address or body', () => {
    const logs = [
      ...demo.logLines(),
      ...testMode.logLines(),
      ...mailLog.entries.map((entry) => JSON.stringify(entry)),
    ].join('\n');
    expect(logs).toContain('mail queued in the outbox');
    expect(logs).not.toMatch(/person\d+@example\.test/);
    expect(logs).not.toContain('Body ');
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
