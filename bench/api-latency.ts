/**
 * Benchmark: latency and throughput of the hot read paths through the real app
 * (`buildApp` + `inject`, PGlite in memory), plus heap growth. Prints figures; asserts
 * nothing. Run: `npm run bench`.
 */
import { performance } from 'node:perf_hooks';
import { eq } from 'drizzle-orm';
import { sessions } from '../apps/server/src/db/schema';
import { createTestApp } from '../apps/server/src/test/test-app';
import { TestClient, createStaffUser, createTeam } from '../apps/server/src/test/fixtures';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 500);

const ctx = await createTestApp({ env: { LOG_LEVEL: 'silent' } });
const db = ctx.database.db;
const team = await createTeam(db, { maxTrials: 100, maxParticipants: 5000 });
const admin = await createStaffUser(db, { role: 'Admin', teamId: team.id });
const client = new TestClient(ctx.app);
await client.login(admin.username, admin.password);
const sessionId = JSON.parse(Buffer.from(client.jar.get('tp_access')!.split('.')[1]!, 'base64url').toString()).sid;
await db.update(sessions).set({ authStatus: 'Authorized' }).where(eq(sessions.id, sessionId));

const created = await client.post('/api/userTrials', { trialNumber: 'BENCH-1', trialName: 'Benchmark trial', trialNotes: '' });
const trialId = created.json().trialId as number;
for (let index = 0; index < 200; index += 1) {
  await client.post('/api/trialParticipants', { trialId, gender: 'none', age: 40, codeSuffix: String(index).padStart(3, '0') });
}

async function measure(name: string, call: () => Promise<{ statusCode: number }>) {
  for (let warm = 0; warm < 20; warm += 1) await call();
  const timings: number[] = [];
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  for (let index = 0; index < ITERATIONS; index += 1) {
    const begin = performance.now();
    const response = await call();
    timings.push(performance.now() - begin);
    if (response.statusCode >= 400) throw new Error(`${name}: HTTP ${response.statusCode}`);
  }
  const total = performance.now() - started;
  timings.sort((a, b) => a - b);
  const at = (q: number) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))]!.toFixed(2);
  console.log(
    `${name.padEnd(38)} ${(ITERATIONS / (total / 1000)).toFixed(0).padStart(6)} req/s  p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  p99 ${at(0.99)} ms  heap Δ${((process.memoryUsage().heapUsed - heapBefore) / 1e6).toFixed(1)} MB`,
  );
}

console.log(`api-latency: ${ITERATIONS} sequential requests each, PGlite in memory, Node ${process.version}`);
await measure('GET /api/appVersion', () => client.get('/api/appVersion'));
await measure('GET /api/auth/user (session check)', () => client.get('/api/auth/user'));
await measure('GET /api/userTrials/', () => client.get('/api/userTrials/'));
await measure('GET /api/trialParticipants/:id (200)', () => client.get(`/api/trialParticipants/${trialId}`));
await ctx.close();
