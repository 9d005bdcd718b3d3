/**
 * Benchmark at trial scale (issue 14): 1,000 trials and 50,000 participants, the real server
 * in its own process over HTTP, loaded by autocannon at 50 connections. Each call runs in
 * short slices interleaved with the bare `GET /api/appVersion` (same server, same run), so
 * the ratios compare like with like on a busy machine. Prints figures and ratios; asserts
 * nothing. Then the login page as Chromium receives it: its JavaScript (brotli as sent,
 * and gzip for a browser without brotli) and every byte on the wire.
 *
 * Databases: PostgreSQL when DATABASE_URL is set (a scratch database `trialpulse_bench` is
 * created next to it, anew each run), and PGlite (files under .tmp/bench-pglite, anew).
 * Settings: BENCH_SECONDS (per slice, 3), BENCH_ROUNDS (3), BENCH_CONNECTIONS (50),
 * BENCH_ONLY=postgres|pglite, BENCH_CPU_PROF (a directory for the server's CPU profile).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import type { Response } from 'playwright-core';
import type { BenchReady } from './support/bench-server';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const GOAL = { throughput: 0.5, p99: 3 };

type Call = { name: string; path: string; paged: boolean };
type Totals = {
  requests: number;
  seconds: number;
  p99s: number[];
  non2xx: number;
  errors: number;
  bytes: number;
};

/** Starts the bench server on a database and waits for it to be ready. */
async function startServer(
  target: { label: string; env: Record<string, string> },
  script = 'bench/support/bench-server.ts',
) {
  const readyFile = path.join(
    os.tmpdir(),
    `trialpulse-bench-ready-${process.pid}-${target.label}.json`,
  );
  fs.rmSync(readyFile, { force: true });
  // BENCH_CPU_PROF=<dir>: the server writes a CPU profile there when it stops.
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', path.join(ROOT, script)], {
    cwd: ROOT,
    env: { ...process.env, ...target.env, BENCH_READY_FILE: readyFile },
    // Log lines are written (their cost is part of the figures) and thrown away.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 15 * 60_000;
  while (!fs.existsSync(readyFile)) {
    if (child.exitCode !== null)
      throw new Error(`bench server (${target.label}) exited ${child.exitCode}:\n${stderr}`);
    if (Date.now() > deadline)
      throw new Error(`bench server (${target.label}) not ready:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await new Promise((resolve) => setTimeout(resolve, 100)); // the file is written in one call
  return { child, ready: JSON.parse(fs.readFileSync(readyFile, 'utf8')) as BenchReady };
}

async function stopServer(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function load(ready: BenchReady, call: Call, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: `${ready.baseUrl}${call.path}`,
    connections: CONNECTIONS,
    duration: seconds,
    // As a browser asks: compressed answers, the session cookie.
    headers: { cookie: ready.cookie, 'accept-encoding': 'br, gzip', accept: 'application/json' },
  });
}

async function measureTarget(label: string, ready: BenchReady) {
  const trialsPage = '/api/userTrials/?pageIndex=0&pageSize=10';
  const calls: Call[] = [
    { name: 'GET /api/appVersion (bare)', path: '/api/appVersion', paged: false },
    { name: 'GET /api/auth/user', path: '/api/auth/user', paged: false },
    {
      name: `GET /api/userTrials/ page of 10 (${ready.trials} trials)`,
      path: trialsPage,
      paged: true,
    },
    {
      name: `GET /api/userTrials/ page 50, sorted desc, filtered`,
      path: '/api/userTrials/?pageIndex=0&pageSize=50&sortBy=trialName&sortDir=desc&filter=trial%201',
      paged: true,
    },
    {
      name: `GET /api/trialParticipants/{id} page of 10 (${ready.smallTrialParticipants} rows)`,
      path: `/api/trialParticipants/${ready.smallTrialId}?pageIndex=0&pageSize=10`,
      paged: true,
    },
    {
      name: 'GET /api/trialParticipants/{id} page 50 of 5,000, page 40',
      path: `/api/trialParticipants/${ready.bigTrialId}?pageIndex=40&pageSize=50&sortBy=participant_code`,
      paged: true,
    },
  ];
  // Check each answer once before loading it: a benchmark of failures measures nothing.
  for (const call of calls) {
    const answer = await get(ready, call.path);
    if (answer.status !== 200)
      throw new Error(
        `${label}: ${call.path} answered ${answer.status}: ${answer.body.slice(0, 300)}`,
      );
    if (call.paged && !/"total":/.test(answer.body)) {
      console.log(
        `  note: ${call.path} answered the whole list (${answer.body.length} bytes): paging not supported by this list yet`,
      );
    }
  }

  const totals = new Map<string, Totals>(
    calls.map((call) => [
      call.name,
      { requests: 0, seconds: 0, p99s: [], non2xx: 0, errors: 0, bytes: 0 },
    ]),
  );
  await load(ready, calls[0]!, 1); // warm-up
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const call of calls) {
      const result = await load(ready, call, SECONDS);
      // autocannon stops sending at the end of a slice, but the server still works through
      // what it received: let it drain so one call's backlog does not land on the next.
      await drain(ready);
      const total = totals.get(call.name)!;
      total.requests += result['2xx'];
      total.seconds += result.duration;
      total.p99s.push(result.latency.p99);
      total.non2xx += result.non2xx;
      total.errors += result.errors;
      total.bytes += result.throughput.total;
    }
  }

  const bare = summary(totals.get(calls[0]!.name)!);
  console.log(
    `\n${label}: ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s per call`,
  );
  console.log(
    `${'call'.padEnd(58)} ${'req/s'.padStart(8)} ${'p99 ms'.padStart(8)} ${'KB/req'.padStart(7)} ${'× req/s'.padStart(8)} ${'× p99'.padStart(7)}  goal`,
  );
  for (const call of calls) {
    const figures = summary(totals.get(call.name)!);
    const throughputRatio = figures.rps / bare.rps;
    const p99Ratio = figures.p99 / Math.max(bare.p99, 1);
    const isBare = call === calls[0];
    const met = throughputRatio >= GOAL.throughput && p99Ratio <= GOAL.p99;
    console.log(
      `${call.name.padEnd(58)} ${figures.rps.toFixed(0).padStart(8)} ${figures.p99.toFixed(1).padStart(8)} ${figures.kbPerRequest.toFixed(2).padStart(7)} ${throughputRatio.toFixed(3).padStart(8)} ${p99Ratio.toFixed(2).padStart(7)}  ${isBare ? '' : met ? 'met' : 'MISSED'}${figures.failures ? `  (${figures.failures} failed)` : ''}`,
    );
  }
}

/** Waits until the bare endpoint answers quickly again (the server's queue is empty). */
async function drain(ready: BenchReady) {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const started = performance.now();
    await get(ready, '/api/appVersion');
    if (performance.now() - started < 20) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function summary(total: Totals) {
  const p99s = [...total.p99s].sort((a, b) => a - b);
  return {
    rps: total.requests / total.seconds,
    // The median of the slices' p99: one slice disturbed by another process does not decide.
    p99: p99s[Math.floor(p99s.length / 2)] ?? 0,
    kbPerRequest: total.bytes / Math.max(total.requests, 1) / 1024,
    failures: total.non2xx + total.errors,
  };
}

function get(ready: BenchReady, urlPath: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string; bytes: number; encoding?: string }>(
    (resolve, reject) => {
      http
        .get(
          `${ready.baseUrl}${urlPath}`,
          { headers: { cookie: ready.cookie, ...headers } },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => {
              const raw = Buffer.concat(chunks);
              resolve({
                status: response.statusCode ?? 0,
                body: response.headers['content-encoding'] ? '' : raw.toString(),
                bytes: raw.length,
                encoding: response.headers['content-encoding'],
              });
            });
          },
        )
        .on('error', reject);
    },
  );
}

/** The login page as Debian's Chromium loads it, with every response's bytes on the wire. */
async function measureLoginPage(ready: BenchReady) {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!fs.existsSync(executablePath)) {
    console.log(`\nlogin page: skipped (no Chromium at ${executablePath}; set CHROMIUM_PATH)`);
    return;
  }
  if (!fs.existsSync(path.join(ROOT, 'apps/web/dist/index.html'))) {
    console.log('\nlogin page: skipped (no web build: run `npm run build`)');
    return;
  }
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic'],
  });
  try {
    const page = await (await browser.newContext()).newPage();
    const responses: Response[] = [];
    page.on('response', (response) => responses.push(response));
    await page.goto(`${ready.baseUrl}/LoginPage`, { waitUntil: 'networkidle' });
    await page.getByTestId('login-page').waitFor({ timeout: 30_000 });
    let wire = 0;
    let scriptWire = 0;
    const scripts: string[] = [];
    for (const response of responses) {
      const sizes = await response.request().sizes();
      const onWire = sizes.responseBodySize + sizes.responseHeadersSize;
      wire += onWire;
      if (response.request().resourceType() === 'script') {
        scriptWire += sizes.responseBodySize;
        scripts.push(new URL(response.url()).pathname);
      }
    }
    // The same scripts as a browser without brotli gets them.
    let gzipBytes = 0;
    for (const script of scripts)
      gzipBytes += (await get(ready, script, { 'accept-encoding': 'gzip' })).bytes;
    const encodings = new Set(
      await Promise.all(
        responses
          .filter((r) => r.request().resourceType() === 'script')
          .map(async (r) => (await r.allHeaders())['content-encoding'] ?? 'none'),
      ),
    );
    console.log('\nlogin page (/LoginPage, Chromium, empty cache):');
    console.log(
      `  JavaScript: ${scripts.length} files, ${(gzipBytes / 1024).toFixed(1)} KiB gzip (goal ≤ 250), ${(scriptWire / 1024).toFixed(1)} KiB as Chromium received it (${[...encodings].join(', ')})`,
    );
    console.log(
      `  every response on the wire (headers + bodies): ${(wire / 1024).toFixed(1)} KiB in ${responses.length} responses`,
    );
  } finally {
    await browser.close();
  }
}

/**
 * The ceiling on this machine (decision 0110): bare Fastify against the same route after one
 * and after two trivial prepared PostgreSQL round trips, interleaved as above. An
 * authenticated list call makes two round trips (the session check, then the list).
 */
async function measureFloor(env: Record<string, string>) {
  const { child, ready } = await startServer(
    { label: 'floor', env },
    'bench/support/round-trip-floor-server.ts',
  );
  try {
    const target = { ...ready, cookie: '' };
    const calls = ['bare', 'one', 'two'];
    const requests = new Map(calls.map((call) => [call, 0]));
    const seconds = new Map(calls.map((call) => [call, 0]));
    await load(target, { name: 'warm-up', path: '/bare', paged: false }, 1);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const call of calls) {
        const result = await load(target, { name: call, path: `/${call}`, paged: false }, SECONDS);
        requests.set(call, requests.get(call)! + result['2xx']);
        seconds.set(call, seconds.get(call)! + result.duration);
      }
    }
    const rate = (call: string) => requests.get(call)! / seconds.get(call)!;
    console.log('\nceiling on this machine: bare Fastify, no app (decision 0110)');
    for (const [call, label] of [
      ['bare', 'GET /bare (answers at once)'],
      ['one', 'GET /one (1 trivial PostgreSQL round trip)'],
      ['two', 'GET /two (2 round trips, as session check + list)'],
    ] as const) {
      console.log(
        `${label.padEnd(58)} ${rate(call).toFixed(0).padStart(8)} ${'×'.padStart(17)} ${(rate(call) / rate('bare')).toFixed(3)}`,
      );
    }
  } finally {
    await stopServer(child);
  }
}

/** A scratch database next to DATABASE_URL's, created anew each run. */
async function benchDatabaseUrl(base: string): Promise<string> {
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    // New each run: the seed is quick, and an old one may carry another branch's migrations.
    await admin.query('DROP DATABASE IF EXISTS trialpulse_bench WITH (FORCE)');
    await admin.query('CREATE DATABASE trialpulse_bench');
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = '/trialpulse_bench';
  return url.toString();
}

console.log(
  `fast-paths bench: Node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}`,
);
const targets: { label: string; env: Record<string, string> }[] = [];
const only = process.env.BENCH_ONLY;
if (process.env.DATABASE_URL && only !== 'pglite') {
  targets.push({
    label: 'PostgreSQL',
    env: { BENCH_DATABASE_URL: await benchDatabaseUrl(process.env.DATABASE_URL) },
  });
} else if (only !== 'pglite') {
  console.log(
    'PostgreSQL: skipped (set DATABASE_URL to a server the bench may create a database on)',
  );
}
if (only !== 'postgres') {
  const dataDir = path.join(ROOT, '.tmp/bench-pglite');
  fs.rmSync(dataDir, { recursive: true, force: true });
  targets.push({ label: 'PGlite', env: { BENCH_DATA_DIR: dataDir } });
}

let loginMeasured = false;
for (const target of targets) {
  const { child, ready } = await startServer(target);
  try {
    console.log(
      `\n${target.label}: ${ready.trials} trials, ${ready.participants} participants (seeding ${(ready.seededMs / 1000).toFixed(1)} s)`,
    );
    await measureTarget(target.label, ready);
    if (target.env.BENCH_DATABASE_URL) await measureFloor(target.env);
    if (!loginMeasured) {
      await measureLoginPage(ready);
      loginMeasured = true;
    }
  } finally {
    await stopServer(child);
  }
}
