/**
 * Benchmark: one page of a Database Info list (GET /api/sysAdminParticipantsData, 50 rows,
 * sorted, and with a global filter) when the table holds 100 rows and when it holds
 * 100,000, in one run on the same database; prints both and their ratio (goal ≤ 2 for the
 * unfiltered page: paging, sorting and counting happen in the database, on indexes).
 * Asserts nothing. Run: `npm run bench` (or `node --import tsx bench/sysadmin-paging.ts`).
 */
import { sql } from 'drizzle-orm';
import { createTestApp } from '../apps/server/src/test/test-app';
import { createStaffUser, createTeam, signIn } from '../apps/server/src/test/fixtures';
import { measure, type Measured } from './measure';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const SMALL = 100;
const LARGE = 100_000;

const ctx = await createTestApp({ env: { LOG_LEVEL: 'silent' } });
const db = ctx.database.db;
const team = await createTeam(db, { hiddenFields: [] });
const sysAdmin = await createStaffUser(db, { role: 'Sys_Admin', teamId: team.id });
const client = await signIn(ctx.app, db, sysAdmin);
await db.execute(sql`
  INSERT INTO trials (team_id, trial_number, trial_name, trial_code, owner_user_id)
  VALUES (${team.id}, 'BENCH-1', 'Benchmark trial', 'BENCH', ${sysAdmin.id})`);

/** Adds participants up to `total` rows, in one statement. */
async function fillTo(total: number) {
  await db.execute(sql`
    INSERT INTO participants (team_id, trial_id, participant_code, participant_code_suffix, email, gender, age, notes)
    SELECT ${team.id}, (SELECT id FROM trials WHERE trial_code = 'BENCH'), 'BENCH-' || n, n::text,
           'person.' || n || '@example.org', 'none', 20 + n % 60, 'note ' || n
    FROM generate_series((SELECT count(*) FROM participants) + 1, ${total}) AS n`);
  await db.execute(sql`ANALYZE participants`);
}

const pages = {
  'first page': '/api/sysAdminParticipantsData?pageSize=50',
  'page 10, sorted by id desc':
    '/api/sysAdminParticipantsData?pageSize=50&pageIndex=10&sortBy=participant_id&sortDir=desc',
  'filtered "person.7"': '/api/sysAdminParticipantsData?pageSize=50&filter=person.7',
} as const;

async function run(rows: number): Promise<Record<string, Measured>> {
  await fillTo(rows);
  const result: Record<string, Measured> = {};
  for (const [name, url] of Object.entries(pages)) {
    result[name] = await measure(`${name} @ ${rows.toLocaleString('en')} rows`, ITERATIONS, () =>
      client.get(url),
    );
  }
  return result;
}

console.log(
  `sysadmin-paging: ${ITERATIONS} sequential requests each, PGlite in memory, Node ${process.version}`,
);
const small = await run(SMALL);
const large = await run(LARGE);
for (const name of Object.keys(pages)) {
  const ratio = large[name]!.p50 / small[name]!.p50;
  console.log(
    `ratio p50 ${name.padEnd(28)} ${LARGE.toLocaleString('en')} / ${SMALL} rows = ${ratio.toFixed(2)}`,
  );
}
await ctx.close();
