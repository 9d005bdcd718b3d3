/**
 * List pages at trial scale (issue 29): 1,000 trials and 50,000 participants on PostgreSQL,
 * the real server in its own process (bench/support/bench-server.ts seeds it), loaded by
 * autocannon at 20 connections in short slices interleaved with the bare `/api/appVersion`
 * (same server, same run). Measures page 1 of the trials and of a 5,000-participant trial's
 * participants, a deep page of each (trials: the last page, 99, sorted by Trial Number;
 * participants: page 200 sorted by code, OFFSET 1,990) and a filtered page of each, and
 * prints req/s, p99 and the ratios of the goal:
 *   page 1 ≥ 0.25× /api/appVersion; deep and filtered pages ≥ 0.8× page 1 and p99 ≤ 2× page 1's.
 * Also, as a second reference, `/api/auth/user`: an authenticated call that does the session
 * check (its one database round trip) and nothing else, so page 1 against it is what the
 * page itself costs beyond signing in (decision 0272). Asserts nothing.
 *
 * Database: a scratch database `trialpulse_list_pages` next to TEST_DATABASE_URL, else
 * DATABASE_URL, else the local server; created anew and dropped at the end.
 * Settings: BENCH_SECONDS (per slice, 3), BENCH_ROUNDS (3), BENCH_CONNECTIONS (20),
 * BENCH_KEEP_DATABASE=1 (keep the scratch database), BENCH_ACCEPT_ENCODING ('br, gzip').
 * Run: `node --import tsx bench/list-pages.ts`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import type { BenchReady } from './support/bench-server';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const DATABASE_NAME = 'trialpulse_list_pages';
const GOAL = { firstPage: 0.25, deepOrFiltered: 0.8, p99: 2 };

type Call = { key: string; name: string; path: string };
type Totals = { requests: number; seconds: number; p99s: number[]; failures: number };

const baseUrl =
  process.env.TEST_DATABASE_URL ??
  process.env.DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/postgres';

console.log(
  `list-pages bench: Node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}, ${CONNECTIONS} connections`,
);
const databaseUrl = await createScratchDatabase(baseUrl);
const { child, ready } = await startServer(databaseUrl);
try {
  console.log(
    `PostgreSQL: ${ready.trials} trials, ${ready.participants} participants (seeding ${(ready.seededMs / 1000).toFixed(1)} s)`,
  );
  await measure(ready);
} finally {
  await stopServer(child);
  // BENCH_KEEP_DATABASE=1 leaves it for EXPLAIN ANALYZE by hand.
  if (process.env.BENCH_KEEP_DATABASE !== '1') await dropScratchDatabase(baseUrl);
}

async function measure(ready: BenchReady) {
  const participantsOf = `/api/trialParticipants/${ready.bigTrialId}`;
  const calls: Call[] = [
    { key: 'bare', name: 'GET /api/appVersion (bare)', path: '/api/appVersion' },
    { key: 'session', name: 'GET /api/auth/user (session check only)', path: '/api/auth/user' },
    {
      key: 'trials1',
      name: 'trials page 1',
      path: '/api/userTrials/?pageIndex=0&pageSize=10',
    },
    {
      key: 'trialsDeep',
      name: 'trials page 99 (last), by Trial Number',
      path: '/api/userTrials/?pageIndex=99&pageSize=10&sortBy=trialNumber',
    },
    {
      key: 'trialsFiltered',
      name: 'trials page 1, filter "trial 77"',
      path: '/api/userTrials/?pageIndex=0&pageSize=10&filter=trial%2077',
    },
    {
      key: 'participants1',
      name: 'participants page 1 (trial of 5,000)',
      path: `${participantsOf}?pageIndex=0&pageSize=10`,
    },
    {
      key: 'participantsDeep',
      name: 'participants page 200, by code',
      path: `${participantsOf}?pageIndex=199&pageSize=10&sortBy=participant_code`,
    },
    {
      key: 'participantsFiltered',
      name: 'participants page 1, filter "-012"',
      path: `${participantsOf}?pageIndex=0&pageSize=10&filter=-012`,
    },
  ];
  // A benchmark of failures or of empty pages measures nothing: check each answer once.
  for (const call of calls) {
    const answer = await get(ready, call.path);
    if (answer.status !== 200)
      throw new Error(`${call.path} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
    if (call.key !== 'bare' && call.key !== 'session') {
      const page = JSON.parse(answer.body) as { rows: unknown[]; total: number };
      console.log(`  ${call.name}: ${page.rows.length} rows of ${page.total}`);
      if (page.rows.length === 0) throw new Error(`${call.path} answered an empty page`);
    }
  }

  const totals = new Map<string, Totals>(
    calls.map((call) => [call.key, { requests: 0, seconds: 0, p99s: [], failures: 0 }]),
  );
  await load(ready, calls[0]!.path, 1); // warm-up
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const call of calls) {
      const result = await load(ready, call.path, SECONDS);
      await drain(ready);
      const total = totals.get(call.key)!;
      total.requests += result['2xx'];
      total.seconds += result.duration;
      total.p99s.push(result.latency.p99);
      total.failures += result.non2xx + result.errors;
    }
  }

  const figures = new Map(calls.map((call) => [call.key, summary(totals.get(call.key)!)]));
  const of = (key: string) => figures.get(key)!;
  console.log(`\n${ROUNDS} interleaved rounds of ${SECONDS} s per call`);
  console.log(
    `${'call'.padEnd(44)} ${'req/s'.padStart(7)} ${'p99 ms'.padStart(7)} ${'ratio'.padStart(20)}  goal`,
  );
  const results: Record<string, number> = {};
  for (const call of calls) {
    const own = of(call.key);
    let ratio = '';
    let verdict = '';
    if (call.key === 'session') {
      const versus = own.rps / of('bare').rps;
      results.sessionVsAppVersion = round3(versus);
      ratio = `${versus.toFixed(3)}× appVersion`;
    } else if (call.key.endsWith('1')) {
      const versus = own.rps / of('bare').rps;
      results[`${call.key}VsAppVersion`] = round3(versus);
      results[`${call.key}VsSession`] = round3(own.rps / of('session').rps);
      ratio = `${versus.toFixed(3)}× appVersion`;
      verdict = `${versus >= GOAL.firstPage ? 'met' : 'MISSED'} (${(own.rps / of('session').rps).toFixed(2)}× the session check)`;
    } else if (call.key !== 'bare') {
      const first = of(call.key.replace(/(Deep|Filtered)$/, '1'));
      const versus = own.rps / first.rps;
      const p99Versus = own.p99 / Math.max(first.p99, 1);
      results[`${call.key}VsPage1`] = round3(versus);
      results[`${call.key}P99VsPage1`] = round3(p99Versus);
      ratio = `${versus.toFixed(2)}× p1, p99 ${p99Versus.toFixed(2)}×`;
      verdict = versus >= GOAL.deepOrFiltered && p99Versus <= GOAL.p99 ? 'met' : 'MISSED';
    }
    console.log(
      `${call.name.padEnd(44)} ${own.rps.toFixed(0).padStart(7)} ${own.p99.toFixed(1).padStart(7)} ${ratio.padStart(20)}  ${verdict}${own.failures ? `  (${own.failures} failed)` : ''}`,
    );
  }
  console.log(JSON.stringify(results));
}

function round3(value: number) {
  return Math.round(value * 1000) / 1000;
}

function summary(total: Totals) {
  const p99s = [...total.p99s].sort((a, b) => a - b);
  return {
    rps: total.requests / total.seconds,
    // The median of the slices' p99: one slice disturbed by another process does not decide.
    p99: p99s[Math.floor(p99s.length / 2)] ?? 0,
    failures: total.failures,
  };
}

function load(ready: BenchReady, urlPath: string, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: `${ready.baseUrl}${urlPath}`,
    connections: CONNECTIONS,
    duration: seconds,
    // As a browser asks (BENCH_ACCEPT_ENCODING=identity: what compression costs per call).
    headers: {
      cookie: ready.cookie,
      'accept-encoding': process.env.BENCH_ACCEPT_ENCODING ?? 'br, gzip',
      accept: 'application/json',
    },
  });
}

/** Waits until the bare endpoint answers quickly again, so one call's backlog does not land on the next. */
async function drain(ready: BenchReady) {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const started = performance.now();
    await get(ready, '/api/appVersion');
    if (performance.now() - started < 20) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function get(ready: BenchReady, urlPath: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    http
      .get(`${ready.baseUrl}${urlPath}`, { headers: { cookie: ready.cookie } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
      })
      .on('error', reject);
  });
}

/** The bench server (seeded, signed in) on the scratch database, once it is ready. */
async function startServer(url: string) {
  const readyFile = path.join(os.tmpdir(), `trialpulse-list-pages-ready-${process.pid}.json`);
  fs.rmSync(readyFile, { force: true });
  const server = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench/support/bench-server.ts')],
    {
      cwd: ROOT,
      env: { ...process.env, BENCH_DATABASE_URL: url, BENCH_READY_FILE: readyFile },
      // Log lines are written (their cost is part of the figures) and thrown away.
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  server.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 15 * 60_000;
  while (!fs.existsSync(readyFile)) {
    if (server.exitCode !== null)
      throw new Error(`bench server exited ${server.exitCode}:\n${stderr}`);
    if (Date.now() > deadline) throw new Error(`bench server not ready:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await new Promise((resolve) => setTimeout(resolve, 100)); // the file is written in one call
  const ready = JSON.parse(fs.readFileSync(readyFile, 'utf8')) as BenchReady;
  fs.rmSync(readyFile, { force: true });
  return { child: server, ready };
}

async function stopServer(server: ChildProcess) {
  if (server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
}

async function createScratchDatabase(base: string): Promise<string> {
  await dropScratchDatabase(base);
  await adminQuery(base, `CREATE DATABASE ${DATABASE_NAME}`);
  const url = new URL(base);
  url.pathname = `/${DATABASE_NAME}`;
  return url.toString();
}

async function dropScratchDatabase(base: string) {
  await adminQuery(base, `DROP DATABASE IF EXISTS ${DATABASE_NAME} WITH (FORCE)`);
}

async function adminQuery(base: string, text: string) {
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}
