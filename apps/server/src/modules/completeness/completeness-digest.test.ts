import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completenessDigestRuns, mailOutbox } from '../../db/schema';
import { startJobs, type JobLogger } from '../../jobs/boss';
import { createManualClock } from '../../lib/clock';
import { createStaffUser, createTeam, signIn, type TestClient } from '../../test/fixtures';
import { createTestApp, type TestApp } from '../../test/test-app';
import { MAIL_DELIVER, createMailDeliverJob } from '../mail/mail.job';
import { startTestSmtpServer, type TestSmtpServer } from '../mail/test-support';
import { addParticipant, createTrial } from '../participants/test-support';
import { readingsServiceFor } from '../sync/test-support';
import { DIGEST_TEMPLATE } from './completeness-digest';
import {
  COMPLETENESS_DIGEST,
  createCompletenessDigestJob,
} from '../../jobs/completeness-digest.job';
import { testServices } from '../../test/test-services';
import { heartRateMinutes } from './reading-generators';
import { addConnection } from './test-support';
import { dayRange, isoDay } from './day-states';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const DAY = 86_400_000;
/**
 * The digest runs at this instant, whatever the real time (its 06:00 UTC schedule): the day
 * it reports, yesterday's fixture and the connections' health are fixed, so no midnight UTC
 * can pass between them. In the real past on purpose: the mail.deliver job runs on the
 * system clock and sends an outbox mail once its send-after (the digest's clock) is due.
 */
const DIGEST_NOW = new Date('2025-06-11T06:00:00Z');
const quiet: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };

describe(`completeness alert digest (${MODE})`, () => {
  let ctx: TestApp;
  let smtp: TestSmtpServer;
  let admin: { email: string };
  let trialUser: { email: string };
  const codes: Record<'lowWear' | 'fine' | 'reconsent' | 'otherTrial', string> = {} as never;
  /** Stores the same wear for everyone on `day` as yesterday's fixture. */
  let wearOn: (day: string) => Promise<void>;
  const clock = createManualClock(DIGEST_NOW);
  const today = isoDay(DIGEST_NOW);
  const yesterday = dayRange(today, 2)[0]!;

  beforeAll(async () => {
    smtp = await startTestSmtpServer();
    ctx = await createTestApp({
      env: { SMTP_URL: smtp.url, PUBLIC_URL: 'https://trialpulse.example.org' },
    });
    const db = ctx.database.db;
    const team = await createTeam(db, { maxTrials: 10, maxParticipants: 100, hiddenFields: [] });
    const adminUser = await createStaffUser(db, { role: 'Admin', teamId: team.id });
    const userUser = await createStaffUser(db, { role: 'User', teamId: team.id });
    const silentAdmin = await createStaffUser(db, { role: 'Admin', teamId: team.id });
    admin = adminUser;
    trialUser = userUser;
    const adminClient = await signIn(ctx.app, db, adminUser);
    const userClient = await signIn(ctx.app, db, userUser);
    await signIn(ctx.app, db, silentAdmin);
    const trial = await createTrial(db, adminClient, [userUser.email]);
    const otherTrial = await createTrial(db, adminClient);

    const add = async (trialId: number) => {
      const added = await addParticipant(adminClient, { trialId });
      return { participantId: added.participantId, teamId: team.id, code: added.participant_code };
    };
    const lowWear = await add(trial.id);
    const fine = await add(trial.id);
    const reconsent = await add(trial.id);
    const elsewhere = await add(otherTrial.id);
    codes.lowWear = lowWear.code;
    codes.fine = fine.code;
    codes.reconsent = reconsent.code;
    codes.otherTrial = elsewhere.code;

    const since = new Date(DIGEST_NOW.getTime() - 30 * DAY);
    const fresh = new Date(DIGEST_NOW.getTime() - 60 * 60 * 1000);
    for (const participant of [lowWear, fine, elsewhere]) {
      await addConnection(db, {
        ...participant,
        brand: 'Fitbit',
        authorizedAt: since,
        deviceLastSyncAt: fresh,
        battery: 'High',
      });
    }
    await addConnection(db, {
      ...reconsent,
      brand: 'Fitbit',
      authorizedAt: since,
      needsReconsent: true,
    });
    wearOn = async (day) => {
      const start = new Date(`${day}T06:00:00Z`);
      await readingsServiceFor(db).store([
        ...heartRateMinutes(lowWear, start, 300, 0),
        ...heartRateMinutes(fine, start, 720, 0),
        ...heartRateMinutes(elsewhere, start, 700, 0),
        // The participant who needs re-consent still wore the tracker all day.
        ...heartRateMinutes(reconsent, start, 720, 0),
      ]);
    };
    await wearOn(yesterday);

    const optIn = async (client: TestClient, trialId: number) => {
      const response = await client.request('PUT', `/api/trials/${trialId}/completeness/digest`, {
        subscribed: true,
      });
      expect(response.statusCode, response.body).toBe(200);
    };
    await optIn(adminClient, trial.id);
    await optIn(adminClient, otherTrial.id);
    await optIn(userClient, trial.id);
  });
  afterAll(async () => {
    await ctx?.close();
    await smtp?.close();
  });

  const digestMails = () =>
    ctx.database.db.select().from(mailOutbox).where(eq(mailOutbox.template, DIGEST_TEMPLATE));

  it('sends one email per opted-in user, with the codes of the participants who crossed a threshold and no health values', async () => {
    const jobs = await startJobs({
      database: ctx.database,
      logger: quiet,
      schedule: false,
      pollingIntervalSeconds: 0.5,
      jobs: [createCompletenessDigestJob(), createMailDeliverJob()],
      // The process's services on the test's clock: the digest's day and "now" come from it.
      services: testServices(ctx.database, { config: ctx.config, clock }),
    });
    try {
      expect(await jobs.boss.send(COMPLETENESS_DIGEST, {})).toBeTruthy();
      await waitFor(
        async () => (await ctx.database.db.select().from(completenessDigestRuns)).length === 1,
      );
      // The job's day is its clock's, not the system's.
      const [run] = await ctx.database.db.select().from(completenessDigestRuns);
      expect(run).toMatchObject({ day: today, mails: 2 });
      expect(await jobs.boss.send(MAIL_DELIVER, {})).toBeTruthy();
      const received = await smtp.waitForMails(2, 60_000);
      expect(received.map((mail) => mail.to[0]).sort()).toEqual(
        [admin.email, trialUser.email].sort(),
      );
      for (const mail of received) {
        expect(mail.body).toContain(codes.lowWear);
        expect(mail.body).toContain(codes.reconsent);
        expect(mail.body).not.toContain(codes.fine);
        expect(mail.body).not.toContain(codes.otherTrial);
        expect(mail.body).toContain('low wear time');
        expect(mail.body).toContain('needs re-consent');
        expect(mail.body).toContain('https://trialpulse.example.org/TrialCompleteness?trialId=');
        // Never a measured value: no wear minutes or hours, heart rates or units. The names
        // carry digits of their own (trial `P-<pid>-<n>` failed this when n was 5), so the
        // trial numbers, participant codes, links and the day are taken out first.
        const withoutNames = [...Object.values(codes), today]
          .reduce((text, name) => text.replaceAll(name, '<name>'), mail.body)
          .replace(/Trial #\S+/g, 'Trial <name>')
          .replace(/https:\/\/\S+/g, '<link>');
        expect(withoutNames).not.toMatch(/\b(300|720|700|5|12)\b|bpm|mg\/dL|mmHg|minutes|hours|%/);
      }
    } finally {
      await jobs.stop();
    }
    expect(await digestMails()).toHaveLength(2);
  });

  it('sends nothing twice for the same day, and nothing when no threshold was newly crossed', async () => {
    const digest = testServices(ctx.database, { config: ctx.config, clock }).completenessDigest;
    // Today's run (the day comes from the clock) was the job's.
    expect(await digest.run()).toEqual({ mails: 0, reported: 0, skipped: true });
    // The next day at 06:00: the same participants are still below, which is not news.
    await wearOn(today);
    clock.set(new Date(DIGEST_NOW.getTime() + DAY));
    expect(await digest.run()).toEqual({ mails: 0, reported: 0, skipped: false });
    expect(
      (await ctx.database.db.select().from(completenessDigestRuns)).map((r) => r.day).sort(),
    ).toEqual([today, isoDay(clock.now())].sort());
    expect(await digestMails()).toHaveLength(2);
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
