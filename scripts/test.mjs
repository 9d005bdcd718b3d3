// `npm test`: installs what it needs, then runs every suite and ends with one line
// `tests: N passed, N failed`.
//   1. unit + integration (shared, server, web) on PGlite
//   2. server integration again on PostgreSQL when TEST_DATABASE_URL is set
//      (every test database is created and dropped by the tests themselves)
//   3. browser tests (Playwright + Debian's Chromium) against the built app
// Finally the logs of the whole run are searched for the demo passwords.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, ensureDependencies, ensureWebBuild, run } from './lib.mjs';

const TMP = path.join(ROOT, '.tmp');
const LOG_DIR = path.join(TMP, 'test-logs');

ensureDependencies();
ensureChromium();
ensureWebBuild();
fs.rmSync(LOG_DIR, { recursive: true, force: true });
fs.mkdirSync(LOG_DIR, { recursive: true });

const { TEST_DATABASE_URL, ...envWithoutDatabase } = process.env;
const passes = [
  { name: 'pglite', projects: ['shared', 'server', 'web'], env: envWithoutDatabase },
  ...(TEST_DATABASE_URL
    ? [
        {
          name: 'postgres',
          projects: ['server'],
          // The simulators use no database; running them twice proves nothing more.
          extraArgs: ['--exclude', 'apps/server/src/simulators/**'],
          env: { ...envWithoutDatabase, TEST_DATABASE_URL },
        },
      ]
    : []),
  { name: 'browser', projects: ['e2e'], env: envWithoutDatabase },
];

let passed = 0;
let failed = 0;
for (const pass of passes) {
  console.log(`\n=== ${pass.name} ===`);
  const result = await runVitest(pass);
  passed += result.passed;
  failed += result.failed;
}

const logCheck = checkLogsForDemoPasswords();
passed += logCheck ? 1 : 0;
failed += logCheck ? 0 : 1;

console.log(`\ntests: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

async function runVitest(pass) {
  const outputFile = path.join(TMP, `results-${pass.name}.json`);
  fs.rmSync(outputFile, { force: true });
  const args = [
    path.join(ROOT, 'node_modules/vitest/vitest.mjs'),
    'run',
    ...pass.projects.map((project) => `--project=${project}`),
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${outputFile}`,
    ...(pass.extraArgs ?? []),
  ];
  const logFile = fs.createWriteStream(path.join(LOG_DIR, `vitest-${pass.name}.log`));
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...pass.env, TEST_LOG_DIR: LOG_DIR, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => (process.stdout.write(chunk), logFile.write(chunk)));
  child.stderr.on('data', (chunk) => (process.stderr.write(chunk), logFile.write(chunk)));
  const exitCode = await new Promise((resolve) => child.on('close', resolve));
  logFile.end();
  if (!fs.existsSync(outputFile)) {
    console.error(`${pass.name}: Vitest wrote no results (exit ${exitCode}); counted as one failure`);
    return { passed: 0, failed: 1 };
  }
  const results = JSON.parse(fs.readFileSync(outputFile, 'utf8'));
  const failedSuites = results.testResults.filter((file) => file.status === 'failed' && file.assertionResults.length === 0).length;
  const counted = { passed: results.numPassedTests, failed: results.numFailedTests + failedSuites };
  if (exitCode !== 0 && counted.failed === 0) counted.failed = 1; // a crash outside any test
  return counted;
}

/** Debian's Chromium drives the browser tests; install it when we can, else say how. */
function ensureChromium() {
  const executable = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (fs.existsSync(executable)) return;
  const isDebianRoot = fs.existsSync('/etc/debian_version') && process.getuid?.() === 0;
  if (!isDebianRoot) {
    console.error(`Chromium not found at ${executable}: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH.`);
    process.exit(1);
  }
  console.log('Installing Debian chromium for the browser tests…');
  run('apt-get', ['update', '-qq']);
  run('apt-get', ['install', '-y', '-qq', 'chromium'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
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
  console.log(`✓ log check: none of the ${passwords.length} demo passwords appear in ${fs.readdirSync(LOG_DIR).length} log files`);
  return true;
}
