import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { exportJobs } from '../../db/schema';
import { createStaffUser, createTeam } from '../../test/fixtures';
import { createTestDatabase } from '../../test/test-database';
import { exportStorageFor, sweepExports } from './export.job';
import { EXPORT_SILENT_MS } from './export.service';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';

/**
 * An export whose worker died stayed `processing`, its progress frozen, until pg-boss's
 * 60-minute expiry of the dead run. The sweep (every minute) now has a job silent for
 * EXPORT_SILENT_MS taken over, and a pending one whose run was lost before its claim — it enqueues a run, whose claim restarts the job (the claim
 * itself is covered by export.test.ts's killed-worker tests) — and leaves live ones alone.
 * The dead worker is simulated by what it leaves behind: a processing row whose heartbeat
 * stopped. The sweep's clock is injected.
 */
describe(`exports of stopped workers (${MODE})`, () => {
  let database: Database;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trialpulse-export-takeover-'));

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a processing job silent for a minute and a pending job unclaimed for a minute are taken over; live and just-queued ones are not', async () => {
    const team = await createTeam(database.db);
    const user = await createStaffUser(database.db, { role: 'Admin', teamId: team.id });
    const now = new Date('2030-01-01T12:00:00Z');
    const insert = async (status: 'pending' | 'processing', lastBeat: Date) => {
      const [row] = await database.db
        .insert(exportJobs)
        .values({
          teamId: team.id,
          createdBy: user.id,
          status,
          progress: 42,
          jobParams: {
            fileName: `f-${status}-${lastBeat.getTime()}`,
            startDate: '2029-12-01',
            endDate: '2029-12-31',
            participantIds: [1],
            metrics: ['steps'],
            exportMode: 'combined',
            deviceId: 1,
          } as never,
        })
        .returning({ id: exportJobs.id });
      await database.db.execute(
        sql`update export_jobs set updated_at = ${lastBeat.toISOString()}::timestamptz where id = ${row!.id}`,
      );
      return row!.id;
    };
    const dead = await insert('processing', new Date(now.getTime() - EXPORT_SILENT_MS - 1_000));
    const live = await insert('processing', new Date(now.getTime() - 10_000));
    // Its run was lost before the claim (the database went away as it started; the probe saw
    // such a job wait for pg-boss's one-hour expiry).
    const lostBeforeClaim = await insert(
      'pending',
      new Date(now.getTime() - EXPORT_SILENT_MS - 1_000),
    );
    const justQueued = await insert('pending', new Date(now.getTime() - 10_000));

    const takenOver: number[] = [];
    const counts = await sweepExports(
      database.db,
      exportStorageFor({ DATA_DIR: dataDir }),
      now,
      async (id) => takenOver.push(id),
    );
    expect(takenOver.sort()).toEqual([dead, lostBeforeClaim].sort());
    expect(counts).toMatchObject({ takenOver: 2, stale: 0 });
    // Left for the run that takes it over (its claim restarts it at 0 %), not failed.
    for (const id of [dead, live])
      expect(
        (await database.db.select().from(exportJobs).where(eq(exportJobs.id, id)))[0],
      ).toMatchObject({ status: 'processing' });
    for (const id of [lostBeforeClaim, justQueued])
      expect(
        (await database.db.select().from(exportJobs).where(eq(exportJobs.id, id)))[0],
      ).toMatchObject({ status: 'pending' });
  });
});
