// `npm test`: installs what it needs, then runs every suite and ends with one line
// `tests: N passed, N failed`.
//   1. unit + integration (shared, provider-simulators, server, web) on PGlite
//   2. server integration again on PostgreSQL when TEST_DATABASE_URL is set, for the test
//      files that use a database only (scripts/database-tests.mjs derives them from their
//      imports; the others already ran, identically, in pass 1). Every test database is
//      created and dropped by the tests themselves.
//   3. browser tests (Playwright + Debian's Chromium) against the built app
//   and `npm run lint` (ESLint + prettier --check) and `npm run typecheck` (tsc over every
//   project, benches included) as one check each, alongside the passes
// The browser pass runs at the same time as passes 1 and 2 (its output kept and printed as
// one block once they are done, and written live to .tmp/test-logs/vitest-browser.log);
// TEST_PASSES_IN_SERIES=1 runs the three passes one after another instead. (The PostgreSQL
// pass alongside pass 1 too was tried, decision 0232: two runs side by side then reached a
// load of 25 on two cores and browser, fuzz and FHIR tests ran out of their budgets.) The browser
// scenarios wait for the state they act on (decision 0134), so they hold under that load.
// The passes share nothing that can collide: every server and simulator binds a free port,
// each PostgreSQL test database has its own random name, the browser servers use embedded
// databases in their own temp directories, and the web app is built before any pass starts.
// A failed test is listed again at the end: pass, file, test, why, and its screenshots.
// Finally the logs of the whole run are searched for the demo passwords.
import { Buffer } from 'node:buffer';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cpuSecondsOf, describeCpu } from './cpu-time.mjs';
import { databaseTestFiles } from './database-tests.mjs';
import { startProcessCpuSampler } from './process-cpu.mjs';
import { ROOT, ensureDependencies, ensureWebBuild } from './lib.mjs';

const TMP = path.join(ROOT, '.tmp');
const LOG_DIR = path.join(TMP, 'test-logs');

ensureDependencies();
ensureChromium();
ensureWebBuild();
fs.rmSync(LOG_DIR, { recursive: true, force: true });
fs.mkdirSync(LOG_DIR, { recursive: true });
removeOldFailureScreenshots();

const { TEST_DATABASE_URL, ...envWithoutDatabase } = process.env;
// Vitest runs availableParallelism − 1 files at once: one on the 2-core CI machine, where the
// database passes then leave a core idle while a file waits on its workers, simulators and
// child processes (measured: 42–97 % idle during the PostgreSQL pass). Two files at once keep
// both cores busy; TEST_MAX_WORKERS overrides.
const databaseWorkers =
  process.env.TEST_MAX_WORKERS ?? String(Math.max(2, os.availableParallelism() - 1));
const passes = [
  {
    name: 'pglite',
    projects: ['shared', 'provider-simulators', 'server', 'web'],
    env: envWithoutDatabase,
    maxWorkers: databaseWorkers,
  },
  ...(TEST_DATABASE_URL
    ? [
        {
          name: 'postgres',
          projects: ['server'],
          // Only the test files that use a database: the rest would repeat pass 1 exactly.
          files: databaseTestFiles(),
          env: { ...envWithoutDatabase, TEST_DATABASE_URL },
          // One worker more than pass 1: this pass waits more than it works. Its database
          // fault test (test/fault) restarts its own cluster for ~165 s and holds one worker
          // throughout, while the other ~90 files need ~150 s on one worker. Measured alone
          // on the 2-core machine: 224 s with two workers, 151 s with three (+18 s of CPU).
          // Beside a second run the cores are busy anyway and it gains nothing (decision 0283).
          maxWorkers: process.env.TEST_MAX_WORKERS ?? String(Number(databaseWorkers) + 1),
        },
      ]
    : []),
  // One browser file at a time: two at once finished the browser pass sooner but slowed the
  // PGlite pass beside it by more, and the run took longer (decision 0269). Every file has
  // its own server, data directory, ports, SMTP server and browser, so TEST_BROWSER_WORKERS
  // may run more where cores are free.
  {
    name: 'browser',
    projects: ['e2e'],
    env: envWithoutDatabase,
    maxWorkers: process.env.TEST_BROWSER_WORKERS ?? '1',
  },
];

const inSeries = ['1', 'true'].includes(process.env.TEST_PASSES_IN_SERIES ?? '');
const background = inSeries ? [] : passes.filter((pass) => pass.name === 'browser');
const foreground = passes.filter((pass) => !background.includes(pass));
const started = Date.now();
const processCpu = startProcessCpuSampler(TMP);
const backgroundRuns = background.map((pass) => {
  console.log(`\n(${pass.name} pass started alongside the others; its output follows them)`);
  return runVitest(pass, { buffered: true });
});

// The lint (`npm run lint`: ESLint with the table-owner and no-cycle rules, and prettier
// --check) is one check of the run, started alongside the passes: about a minute of CPU.
// The type check (`npm run typecheck`) likewise: Vitest strips types, so a test or bench that
// no longer type-checks would otherwise pass unseen (bench/ went stale that way).
const lintRun = runCheck('lint');
const typecheckRun = runCheck('typecheck');

let passed = 0;
let failed = 0;
const failures = [];
for (const pass of foreground) {
  console.log(`\n=== ${pass.name} ===`);
  const result = await runVitest(pass);
  console.log(`=== ${pass.name}: ${timesOf(result)} ===`);
  passed += result.passed;
  failed += result.failed;
  failures.push(...result.failures);
}
for (const [index, run] of backgroundRuns.entries()) {
  const pass = background[index];
  const result = await run;
  console.log(`\n=== ${pass.name} (ran alongside the passes above) ===`);
  process.stdout.write(result.output);
  console.log(`=== ${pass.name}: ${timesOf(result)} ===`);
  passed += result.passed;
  failed += result.failed;
  failures.push(...result.failures);
}
for (const [name, run, why] of [
  ['lint', lintRun, 'ESLint or prettier --check found problems: see the lint output above'],
  ['typecheck', typecheckRun, 'tsc found type errors: see the typecheck output above'],
]) {
  const check = await run;
  console.log(
    `\n=== ${name} (ran alongside) ===\n${check.ok ? '' : check.output}=== ${name}: ${check.ok ? 'passed' : 'failed'}, ${timesOf(check)} ===`,
  );
  passed += check.ok ? 1 : 0;
  failed += check.ok ? 0 : 1;
  if (!check.ok) failures.push({ pass: name, title: `npm run ${name}`, why });
}
// Everything this script started has been waited for: its own figure is the run's CPU.
const runCpu = describeCpu(cpuSecondsOf());
console.log(`\nall passes: ${seconds(Date.now() - started)}${runCpu ? `, ${runCpu}` : ''}`);
// The same read per process from /proc every 2 s, Chromium's processes included (the figures
// above miss them: they are not waited for by a process of ours; decision 0277).
const sampled = processCpu.stop();
if (sampled) {
  const parts = Object.entries(sampled).map(([name, cpuS]) => `${name} ${Math.round(cpuS)} s`);
  const total = Object.values(sampled).reduce((sum, cpuS) => sum + cpuS, 0);
  console.log(`CPU per process (sampled): ${parts.join(', ')}; all ${Math.round(total)} s`);
}

printFailures(failures);
const logCheck = checkLogsForDemoPasswords();
passed += logCheck ? 1 : 0;
failed += logCheck ? 0 : 1;

console.log(`\ntests: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

/** `npm run <script>` (lint, typecheck), its output kept (shown only when it fails). */
async function runCheck(script) {
  const start = Date.now();
  const cpuFile = path.join(TMP, `cpu-${script}.json`);
  fs.rmSync(cpuFile, { force: true });
  const child = spawn('npm', ['run', '--silent', script], {
    cwd: ROOT,
    env: {
      ...envWithoutDatabase,
      FORCE_COLOR: '0',
      // npm itself reports the CPU of the check (tsc, ESLint and prettier are its children).
      NODE_OPTIONS: `--import ${JSON.stringify(path.join(ROOT, 'scripts/cpu-time.mjs'))}`,
      CPU_TIME_FILE: cpuFile,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // At a lower priority: nothing waits on these checks until the end, so on a busy machine
  // they take the CPU the test passes leave idle instead of slowing the start of every pass
  // (the browser pass's demo server starts then). npm starts its script after this is set,
  // and tsc, ESLint and prettier inherit it.
  try {
    os.setPriority(child.pid, 10);
  } catch {
    // Not permitted here: the checks run at normal priority.
  }
  const kept = [];
  child.stdout.on('data', (chunk) => kept.push(chunk));
  child.stderr.on('data', (chunk) => kept.push(chunk));
  const exitCode = await new Promise((resolve) => {
    child.on('error', (error) => (kept.push(Buffer.from(`${error.stack}\n`)), resolve(null)));
    child.on('close', resolve);
  });
  const output = Buffer.concat(kept).toString();
  fs.writeFileSync(path.join(LOG_DIR, `${script}.log`), output);
  const cpu = fs.existsSync(cpuFile) ? JSON.parse(fs.readFileSync(cpuFile, 'utf8')) : null;
  return { ok: exitCode === 0, output, wallMs: Date.now() - start, cpu };
}

/** "593 s, CPU 700 s (user 600 + sys 100)": a pass's wall time and its processes' CPU time. */
function timesOf(result) {
  const cpu = describeCpu(result.cpu);
  return `${seconds(result.wallMs)}${cpu ? `, ${cpu}` : ''}`;
}

function seconds(ms) {
  return `${Math.round(ms / 1000)} s`;
}

/**
 * Runs one pass's Vitest and counts its results from the JSON reporter. With `buffered`, the
 * output (stdout and stderr, in order) is kept and returned as `output` instead of shown.
 */
async function runVitest(pass, { buffered = false } = {}) {
  const start = Date.now();
  const counted = await runVitestOnce(pass, buffered);
  return { ...counted, wallMs: Date.now() - start };
}

async function runVitestOnce(pass, buffered) {
  const outputFile = path.join(TMP, `results-${pass.name}.json`);
  const cpuFile = path.join(TMP, `cpu-${pass.name}.json`);
  fs.rmSync(outputFile, { force: true });
  fs.rmSync(cpuFile, { force: true });
  const args = [
    '--import',
    path.join(ROOT, 'scripts/cpu-time.mjs'),
    path.join(ROOT, 'node_modules/vitest/vitest.mjs'),
    'run',
    ...pass.projects.map((project) => `--project=${project}`),
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${outputFile}`,
    ...(pass.maxWorkers ? [`--maxWorkers=${pass.maxWorkers}`] : []),
    ...(pass.files ?? []),
  ];
  const logFile = fs.createWriteStream(path.join(LOG_DIR, `vitest-${pass.name}.log`));
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...pass.env, TEST_LOG_DIR: LOG_DIR, FORCE_COLOR: '0', CPU_TIME_FILE: cpuFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const kept = [];
  const show = (stream) => (chunk) => {
    if (buffered) kept.push(chunk);
    else stream.write(chunk);
    logFile.write(chunk);
  };
  child.stdout.on('data', show(process.stdout));
  child.stderr.on('data', show(process.stderr));
  const exitCode = await new Promise((resolve) => {
    child.on('error', (error) => (kept.push(Buffer.from(`${error.stack}\n`)), resolve(null)));
    child.on('close', resolve);
  });
  await new Promise((resolve) => logFile.end(resolve));
  const output = Buffer.concat(kept).toString();
  const cpu = fs.existsSync(cpuFile) ? JSON.parse(fs.readFileSync(cpuFile, 'utf8')) : null;
  if (!fs.existsSync(outputFile)) {
    const message = `${pass.name}: Vitest wrote no results (exit ${exitCode}); counted as one failure`;
    if (!buffered) console.error(message);
    return {
      passed: 0,
      failed: 1,
      output: `${output}${message}\n`,
      failures: [{ pass: pass.name, title: '(no results)', why: message }],
      cpu,
    };
  }
  const results = JSON.parse(fs.readFileSync(outputFile, 'utf8'));
  const failedSuites = results.testResults.filter(
    (file) => file.status === 'failed' && file.assertionResults.length === 0,
  ).length;
  const counted = { passed: results.numPassedTests, failed: results.numFailedTests + failedSuites };
  const failures = failuresOf(pass.name, results);
  if (exitCode !== 0 && counted.failed === 0) {
    // A crash outside any test, e.g. an unhandled rejection or uncaught exception.
    counted.failed = 1;
    failures.push({
      pass: pass.name,
      title: '(outside any test)',
      why: `Vitest exited with ${exitCode}: an unhandled error, see the output above`,
    });
  }
  return { ...counted, output, failures, cpu };
}

/** Every failed test (or test file that failed before its tests ran) of one pass's results. */
function failuresOf(passName, results) {
  const failures = [];
  for (const file of results.testResults) {
    const relative = path.relative(ROOT, file.name);
    const failedTests = file.assertionResults.filter((test) => test.status === 'failed');
    for (const test of failedTests) {
      failures.push({
        pass: passName,
        title: `${relative} > ${test.fullName}`,
        why: firstLine(test.failureMessages?.[0]),
        testName: test.title,
      });
    }
    if (file.status === 'failed' && failedTests.length === 0) {
      failures.push({ pass: passName, title: relative, why: firstLine(file.message) });
    }
  }
  return failures;
}

function firstLine(text) {
  return (
    (text ?? '')
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? 'no message'
  );
}

function removeOldFailureScreenshots() {
  const screenshotDir = path.join(TMP, 'screenshots');
  if (!fs.existsSync(screenshotDir)) return;
  for (const shot of fs.readdirSync(screenshotDir))
    if (shot.startsWith('failure-')) fs.rmSync(path.join(screenshotDir, shot));
}

/** The closing list of failures, with the browser tests' screenshots (e2e/support/page-trouble.ts names them). */
function printFailures(failures) {
  if (failures.length === 0) return;
  const screenshotDir = path.join(TMP, 'screenshots');
  const shots = fs.existsSync(screenshotDir) ? fs.readdirSync(screenshotDir) : [];
  console.log(`\n${failures.length} failed:`);
  for (const failure of failures) {
    console.log(`✗ [${failure.pass}] ${failure.title}\n    why: ${failure.why}`);
    if (failure.pass !== 'browser' || !failure.testName) continue;
    const prefix = `failure-${failure.testName.replace(/[^\w-]+/g, '-').slice(0, 60)}-`;
    const mine = shots
      .filter((shot) => shot.startsWith(prefix))
      .map((shot) => path.join(screenshotDir, shot));
    console.log(`    screenshots: ${mine.length ? mine.join(', ') : 'none'}`);
  }
}

/**
 * Debian's Chromium headless shell (package chromium-headless-shell: Chromium's own
 * headless-only build, which Playwright also uses for headless runs) drives the browser
 * tests: the same pass took 12 % less CPU in it than in the full browser run headless
 * (decision 0278). Installed when we can, else we say how; CHROMIUM_PATH picks another.
 */
function ensureChromium() {
  const executable = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';
  if (fs.existsSync(executable)) return;
  const isDebianRoot = fs.existsSync('/etc/debian_version') && process.getuid?.() === 0;
  if (process.env.CHROMIUM_PATH || !isDebianRoot) {
    console.error(
      `Chromium not found at ${executable}: install it (Debian: apt-get install chromium-headless-shell) or set CHROMIUM_PATH.`,
    );
    process.exit(1);
  }
  console.log("Installing Debian's chromium-headless-shell for the browser tests…");
  // Another run on the machine may hold apt's locks (two fresh clones testing at once):
  // wait for it and look again, since it may be installing Chromium itself.
  for (let attempt = 1; ; attempt++) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const updated = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env }).status === 0;
    const install = ['install', '-y', '-qq', 'chromium-headless-shell'];
    if (updated && spawnSync('apt-get', install, { stdio: 'inherit', env }).status === 0) return;
    if (fs.existsSync(executable)) return;
    if (attempt === 20) {
      console.error('Could not install Debian chromium-headless-shell (apt-get failed 20 times).');
      process.exit(1);
    }
    console.log(`apt-get failed (another install running?); trying again in 15 s (${attempt}/20)`);
    spawnSync('sleep', ['15']);
  }
}

/** One check over every log line of the run: no demo password may appear anywhere. */
function checkLogsForDemoPasswords() {
  const listed = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      "import('./apps/server/src/db/seed/demo-seed.ts').then(m => console.log(JSON.stringify(m.DEMO_ACCOUNTS.map(a => a.password))))",
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  let passwords;
  try {
    passwords = JSON.parse(listed.stdout.trim().split('\n').at(-1));
  } catch {
    console.error('log check: could not read the demo passwords', listed.stderr);
    return false;
  }
  const leaks = [];
  for (const file of fs.readdirSync(LOG_DIR)) {
    const text = fs.readFileSync(path.join(LOG_DIR, file), 'utf8');
    for (const password of passwords) if (text.includes(password)) leaks.push(file);
  }
  if (leaks.length > 0) {
    console.error(`✗ log check: demo passwords found in ${[...new Set(leaks)].join(', ')}`);
    return false;
  }
  console.log(
    `✓ log check: none of the ${passwords.length} demo passwords appear in ${fs.readdirSync(LOG_DIR).length} log files`,
  );
  return true;
}
