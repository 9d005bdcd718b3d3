/**
 * Benchmark: latency and throughput of the hot read paths through the real app
 * (`buildApp` + `inject`, PGlite in memory), plus heap growth. Prints figures; asserts
 * nothing. Run: `npm run bench`.
 */
import { createTestApp } from '../apps/server/src/test/test-app';
import { createStaffUser, createTeam, signIn } from '../apps/server/src/test/fixtures';
import { measure } from './measure';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 500);

const ctx = await createTestApp({ env: { LOG_LEVEL: 'silent' } });
const db = ctx.database.db;
const team = await createTeam(db, { maxTrials: 100, maxParticipants: 5000 });
const admin = await createStaffUser(db, { role: 'Admin', teamId: team.id });
const client = await signIn(ctx.app, db, admin);

const created = await client.post('/api/userTrials', {
  trialNumber: 'BENCH-1',
  trialName: 'Benchmark trial',
  trialNotes: '',
});
const trialId = created.json().trialId as number;
for (let index = 0; index < 200; index += 1) {
  await client.post('/api/trialParticipants', {
    trialId,
    gender: 'none',
    age: 40,
    codeSuffix: String(index).padStart(3, '0'),
  });
}

console.log(
  `api-latency: ${ITERATIONS} sequential requests each, PGlite in memory, Node ${process.version}`,
);
await measure('GET /api/appVersion', ITERATIONS, () => client.get('/api/appVersion'));
await measure('GET /api/auth/user (session check)', ITERATIONS, () => client.get('/api/auth/user'));
await measure('GET /api/userTrials/', ITERATIONS, () => client.get('/api/userTrials/'));
await measure('GET /api/trialParticipants/:id (200)', ITERATIONS, () =>
  client.get(`/api/trialParticipants/${trialId}`),
);
await ctx.close();
