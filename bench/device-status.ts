/**
 * Benchmark: the device status calls the trial page's refresh cycle makes, through the real
 * app against the provider simulators over HTTP (PGlite in memory), and a burst of
 * concurrent refreshes of one connection. Prints figures; asserts nothing.
 * Run: `npm run bench`.
 */
import { performance } from 'node:perf_hooks';
import { measure } from './measure';
import { createTestApp } from '../apps/server/src/test/test-app';
import { createStaffUser, createTeam } from '../apps/server/src/test/fixtures';
import { startAllSimulators } from '@trialpulse/provider-simulators';
import { addParticipant, createTrial } from '../apps/server/src/modules/participants/test-support';
import { signIn } from '../apps/server/src/modules/trials/test-support';
import {
  allowAllBrands,
  linkAsStaff,
  simulatorEnv,
} from '../apps/server/src/modules/devices/test-support';
import { countRequests } from '../apps/server/src/modules/devices/core/test-support';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);

const sims = await startAllSimulators();
const ctx = await createTestApp({ env: { ...simulatorEnv(sims), LOG_LEVEL: 'silent' } });
const db = ctx.database.db;
const team = await createTeam(db, { maxTrials: 10, maxParticipants: 100, hiddenFields: [] });
await allowAllBrands(db, team.id);
const admin = await signIn(
  ctx.app,
  db,
  await createStaffUser(db, { role: 'Admin', teamId: team.id }),
);
const trial = await createTrial(db, admin);
const { participantId } = await addParticipant(admin, {
  trialId: trial.id,
  email: 'bench@study.example.org',
});
const linked = await linkAsStaff(admin, participantId, 'Fitbit');
if (linked.statusCode !== 200) throw new Error(`linking failed: ${linked.body}`);

console.log(
  `device-status: ${ITERATIONS} sequential requests each, simulators over HTTP, Node ${process.version}`,
);
await measure('GET /api/fitbitIsParticipantAuth/:id', ITERATIONS, () =>
  admin.get(`/api/fitbitIsParticipantAuth/${participantId}`),
);
await measure('GET /api/fitbitDevices/:id (provider call)', ITERATIONS, () =>
  admin.get(`/api/fitbitDevices/${participantId}`),
);
await measure('GET /api/participantConnections/:id', ITERATIONS, () =>
  admin.get(`/api/participantConnections/${participantId}`),
);

const tokenCalls = countRequests(sims.googleHealth, '/token');
const burstStarted = performance.now();
await Promise.all(
  Array.from({ length: 50 }, () => admin.post('/api/fitbitRefreshToken', { id: participantId })),
);
console.log(
  `50 concurrent refreshes of one connection: ${(performance.now() - burstStarted).toFixed(0)} ms, ${tokenCalls.count} call(s) to the token endpoint`,
);
tokenCalls.stop();
await ctx.close();
await sims.close();
