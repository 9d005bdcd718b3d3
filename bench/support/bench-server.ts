/**
 * The server the load bench measures, in its own process (so the load generator does not
 * share its event loop): opens the database (PostgreSQL at BENCH_DATABASE_URL, else PGlite
 * files under BENCH_DATA_DIR), migrates, seeds the trial-scale data set once, signs an Admin
 * in, listens on a free port with the web build and info-level logs (to stdout, which the
 * bench discards), and writes what the bench needs as JSON to BENCH_READY_FILE.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { buildApp } from '../../apps/server/src/app';
import { loadConfig } from '../../apps/server/src/config/env';
import { openDatabase, runMigrations, type Db } from '../../apps/server/src/db/client';
import { participants, teams, trials, trialUsers } from '../../apps/server/src/db/schema';
import { ACCESS_COOKIE } from '../../apps/server/src/modules/auth/session-tokens';
import { createStaffUser, createTeam, signIn } from '../../apps/server/src/test/fixtures';

export const SCALE = { trials: 1_000, participants: 50_000, bigTrialParticipants: 5_000 } as const;
const TEAM_NAME = 'Bench team (trial scale)';

export type BenchReady = {
  baseUrl: string;
  cookie: string;
  bigTrialId: number;
  smallTrialId: number;
  smallTrialParticipants: number;
  trials: number;
  participants: number;
  seededMs: number;
};

const dataDir = process.env.BENCH_DATA_DIR;
const databaseUrl = process.env.BENCH_DATABASE_URL;
const readyFile = process.env.BENCH_READY_FILE;
if (!readyFile || (!dataDir && !databaseUrl))
  throw new Error('BENCH_READY_FILE and BENCH_DATA_DIR or BENCH_DATABASE_URL are required');

const database = await openDatabase(
  databaseUrl
    ? { kind: 'postgres', connectionString: databaseUrl }
    : { kind: 'pglite', dataDir: path.join(dataDir!, 'db') },
);
await runMigrations(database);
const db = database.db;

const started = Date.now();
const seeded = await seed(db);
// As the database is in steady use (autovacuum has run): planner statistics for the new rows,
// and the visibility map that lets counts read indexes only.
await db.execute(sql`VACUUM ANALYZE`);
const seededMs = Date.now() - started;

const config = loadConfig({
  TRIALPULSE_MODE: 'test',
  DATA_DIR: dataDir ?? fs.mkdtempSync('/tmp/trialpulse-bench-'),
  APP_SECRET: randomBytes(32).toString('hex'),
  TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  JOBS_ENABLED: 'false',
  SERVE_WEB: 'true',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  HUMAN_CHECK_DIFFICULTY: '1000',
});
const app = await buildApp({ config, database });
const admin = await signIn(app, db, seeded.admin);
await app.listen({ port: 0, host: '127.0.0.1' });
const { port } = app.server.address() as AddressInfo;

const ready: BenchReady = {
  baseUrl: `http://127.0.0.1:${port}`,
  cookie: `${ACCESS_COOKIE}=${admin.jar.get(ACCESS_COOKIE)}`,
  bigTrialId: seeded.bigTrialId,
  smallTrialId: seeded.smallTrialId,
  smallTrialParticipants: seeded.smallTrialParticipants,
  trials: seeded.trials,
  participants: seeded.participants,
  seededMs,
};
fs.writeFileSync(readyFile, JSON.stringify(ready));

const stop = async () => {
  await app.close();
  await database.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());

/**
 * One team with 1,000 trials and 50,000 participants: trial 1 has 5,000, the other 999
 * share the rest (45 each, 50 for some). Kept across runs of the same data directory.
 */
async function seed(q: Db) {
  const password = 'Bench#Passw0rd';
  const [existing] = await q.select().from(teams).where(eq(teams.teamName, TEAM_NAME));
  const team =
    existing ??
    (await createTeam(q, {
      teamName: TEAM_NAME,
      maxTrials: 2_000,
      maxParticipants: 60_000,
      maxUsers: 50,
      hiddenFields: [],
    }));
  // A fresh Admin each run (its password is known); the trials keep their first owner.
  const admin = await createStaffUser(q, { role: 'Admin', teamId: team.id, password });

  let trialRows = await q
    .select({ id: trials.id, code: trials.trialCode })
    .from(trials)
    .where(eq(trials.teamId, team.id))
    .orderBy(trials.id);
  if (trialRows.length < SCALE.trials) {
    const values = Array.from({ length: SCALE.trials - trialRows.length }, (_, index) => {
      const n = trialRows.length + index + 1;
      return {
        teamId: team.id,
        trialNumber: `BENCH-${String(n).padStart(4, '0')}`,
        trialName: `Benchmark trial ${n}`,
        trialNotes: n % 3 === 0 ? `Notes of trial ${n}` : null,
        trialCode: `B${String(n).padStart(4, '0')}`,
        ownerUserId: admin.id,
      };
    });
    for (let at = 0; at < values.length; at += 500)
      await q.insert(trials).values(values.slice(at, at + 500));
    trialRows = await q
      .select({ id: trials.id, code: trials.trialCode })
      .from(trials)
      .where(eq(trials.teamId, team.id))
      .orderBy(trials.id);
    await q
      .insert(trialUsers)
      .values(trialRows.map((trial) => ({ teamId: team.id, trialId: trial.id, userId: admin.id })))
      .onConflictDoNothing();
  }

  const [{ count } = { count: 0 }] = await q
    .select({ count: sql<number>`count(*)`.mapWith(Number) })
    .from(participants)
    .where(eq(participants.teamId, team.id));
  if (count < SCALE.participants) {
    await q.delete(participants).where(eq(participants.teamId, team.id));
    const perSmallTrial =
      (SCALE.participants - SCALE.bigTrialParticipants) / (trialRows.length - 1);
    const rows: (typeof participants.$inferInsert)[] = [];
    const genders = ['female', 'male', 'other', 'none'] as const;
    trialRows.forEach((trial, trialIndex) => {
      const size =
        trialIndex === 0
          ? SCALE.bigTrialParticipants
          : Math.floor(perSmallTrial * trialIndex) - Math.floor(perSmallTrial * (trialIndex - 1));
      for (let n = 1; n <= size; n += 1) {
        const suffix = String(n).padStart(4, '0');
        rows.push({
          teamId: team.id,
          trialId: trial.id,
          participantCode: `${trial.code}-${suffix}`,
          participantCodeSuffix: suffix,
          email: `p${trial.id}-${n}@bench.example.org`,
          gender: genders[n % 4],
          age: 18 + (n % 70),
          notes: n % 5 === 0 ? `Visit ${n % 12} notes` : null,
        });
      }
    });
    for (let at = 0; at < rows.length; at += 1_000)
      await q.insert(participants).values(rows.slice(at, at + 1_000));
  }
  const [smallTrial] = await q
    .select({ trialId: participants.trialId, n: sql<number>`count(*)`.mapWith(Number) })
    .from(participants)
    .where(eq(participants.trialId, trialRows[1]!.id))
    .groupBy(participants.trialId);
  return {
    admin,
    bigTrialId: trialRows[0]!.id,
    smallTrialId: trialRows[1]!.id,
    smallTrialParticipants: smallTrial?.n ?? 0,
    trials: trialRows.length,
    participants: Math.max(count, SCALE.participants),
  };
}
