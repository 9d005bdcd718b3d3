import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import {
  backendClientAssertions,
  backendClients,
  oneTimeCodes,
  oneTimeTokens,
  rememberedDevices,
  sessions,
  teams,
  users,
} from '../db/schema';
import { createTestDatabase } from '../test/test-database';
import { startJobs, type Jobs, type JobLogger } from './boss';
import { jobDefinitions } from './registry';
import { testServices } from '../test/test-services';
import { MAINTENANCE_PURGE_EXPIRED, type PurgeCounts } from './maintenance';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const HOUR = 60 * 60 * 1000;
/** Where the export jobs of the list keep their files in this test. */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trialpulse-jobs-'));

describe(`pg-boss jobs (${MODE})`, () => {
  let database: Database;
  let jobs: Jobs;
  const logged: { level: string; obj: Record<string, unknown>; msg?: string }[] = [];
  const logger: JobLogger = {
    info: (obj, msg) => logged.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
    warn: (obj, msg) => logged.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    error: (obj, msg) => logged.push({ level: 'error', obj: obj as Record<string, unknown>, msg }),
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    // The production job list: a job added to registry.ts runs here too.
    jobs = await startJobs({
      database,
      logger,
      schedule: true,
      pollingIntervalSeconds: 0.5,
      jobs: jobDefinitions({
        MAIL_FROM: 'TrialPulse <no-reply@trialpulse.test>',
        DATA_DIR: dataDir,
        PUBLIC_URL: 'http://localhost:3000',
      }),
      services: testServices(database),
    });
  });
  afterAll(async () => {
    await jobs?.stop();
    await database?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts every job of the production list, with its schedule', async () => {
    const schedules = await jobs.boss.getSchedules();
    const definitions = jobDefinitions({
      MAIL_FROM: 'TrialPulse <no-reply@trialpulse.test>',
      DATA_DIR: dataDir,
      PUBLIC_URL: 'http://localhost:3000',
    });
    for (const job of definitions) {
      expect(await jobs.boss.getQueue(job.name)).toMatchObject({ name: job.name });
      if (job.cron)
        expect(schedules).toContainEqual(
          expect.objectContaining({ name: job.name, cron: job.cron }),
        );
    }
  });

  it('registers the maintenance schedule (every 15 minutes, UTC)', async () => {
    const schedules = await jobs.boss.getSchedules();
    expect(schedules).toContainEqual(
      expect.objectContaining({ name: MAINTENANCE_PURGE_EXPIRED, cron: '*/15 * * * *' }),
    );
  });

  it('runs the maintenance job: expired rows go, live rows stay', async () => {
    const now = Date.now();
    const past = new Date(now - HOUR);
    const future = new Date(now + HOUR);
    const token = () => randomBytes(16).toString('hex');

    const [user] = await database.db
      .insert(users)
      .values({
        email: 'jobs@example.test',
        username: 'jobs@example.test',
        firstName: 'J',
        lastName: 'B',
      })
      .returning({ id: users.id });
    const userId = user!.id;
    const sessionRows = await database.db
      .insert(sessions)
      .values([
        { userId, tokenVersion: 0, idleExpiresAt: future, expiresAt: past },
        { userId, tokenVersion: 0, idleExpiresAt: past, expiresAt: future },
        { userId, tokenVersion: 0, idleExpiresAt: future, expiresAt: future },
      ])
      .returning({ id: sessions.id });
    const codeRows = await database.db
      .insert(oneTimeCodes)
      .values([
        { userId, purpose: 'sfa_email', codeHash: token(), expiresAt: past },
        { userId, purpose: 'sfa_email', codeHash: token(), expiresAt: future },
      ])
      .returning({ id: oneTimeCodes.id });
    const tokenRows = await database.db
      .insert(oneTimeTokens)
      .values([
        { purpose: 'password_reset', userId, tokenHash: token(), expiresAt: past },
        { purpose: 'password_reset', userId, tokenHash: token(), expiresAt: future },
      ])
      .returning({ id: oneTimeTokens.id });
    const [team] = await database.db
      .insert(teams)
      .values({ teamName: `Jobs team ${token()}` })
      .returning({ id: teams.id });
    const [backendClient] = await database.db
      .insert(backendClients)
      .values({
        teamId: team!.id,
        clientId: token(),
        name: 'Pipeline',
        keyFormat: 'jwks',
        jwks: { keys: [] },
        scopes: ['system/*.rs'],
        createdBy: userId,
      })
      .returning({ id: backendClients.id });
    await database.db.insert(backendClientAssertions).values([
      { backendClientId: backendClient!.id, jti: 'spent', expiresAt: past },
      { backendClientId: backendClient!.id, jti: 'live', expiresAt: future },
    ]);
    const deviceRows = await database.db
      .insert(rememberedDevices)
      .values([
        { userId, tokenHash: token(), tokenVersion: 0, expiresAt: past },
        { userId, tokenHash: token(), tokenVersion: 0, expiresAt: future },
      ])
      .returning({ id: rememberedDevices.id });

    const jobId = await jobs.boss.send(MAINTENANCE_PURGE_EXPIRED, {});
    expect(jobId).toBeTruthy();
    await waitFor(
      async () =>
        (await jobs.boss.getJobById(MAINTENANCE_PURGE_EXPIRED, jobId!))?.state === 'completed',
    );

    const remainingSessions = await database.db
      .select({ id: sessions.id })
      .from(sessions)
      .where(
        inArray(
          sessions.id,
          sessionRows.map((row) => row.id),
        ),
      );
    expect(remainingSessions).toEqual([sessionRows[2]]);
    expect(
      await database.db
        .select({ id: oneTimeCodes.id })
        .from(oneTimeCodes)
        .where(eq(oneTimeCodes.userId, userId)),
    ).toEqual([codeRows[1]]);
    expect(
      await database.db
        .select({ id: oneTimeTokens.id })
        .from(oneTimeTokens)
        .where(eq(oneTimeTokens.userId, userId)),
    ).toEqual([tokenRows[1]]);
    expect(
      await database.db
        .select({ id: rememberedDevices.id })
        .from(rememberedDevices)
        .where(eq(rememberedDevices.userId, userId)),
    ).toEqual([deviceRows[1]]);
    expect(
      await database.db
        .select({ jti: backendClientAssertions.jti })
        .from(backendClientAssertions)
        .where(eq(backendClientAssertions.backendClientId, backendClient!.id)),
    ).toEqual([{ jti: 'live' }]);

    // The counts are logged (a scheduled run may have done part of the work first).
    const runs = logged.filter((entry) => entry.obj.job === MAINTENANCE_PURGE_EXPIRED);
    expect(runs.length).toBeGreaterThan(0);
    const total = (key: keyof PurgeCounts) =>
      runs.reduce((sum, entry) => sum + Number(entry.obj[key]), 0);
    expect([
      total('sessions'),
      total('oneTimeCodes'),
      total('oneTimeTokens'),
      total('rememberedDevices'),
      total('backendClientAssertions'),
    ]).toEqual([2, 1, 1, 1, 1]);
    expect(logged.filter((entry) => entry.level === 'error')).toEqual([]);
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
