// Helpers shared by `npm start`, `npm test` and `npm run dev`: make a fresh clone runnable.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed with exit code ${result.status}`);
  }
  return result;
}

/** Installs dependencies when node_modules is missing or older than the lockfile. */
export function ensureDependencies() {
  const marker = path.join(ROOT, 'node_modules/.package-lock.json');
  const lock = path.join(ROOT, 'package-lock.json');
  const stale = !fs.existsSync(marker) || (fs.existsSync(lock) && mtime(lock) > mtime(marker));
  if (!stale) return;
  // `npm install` rather than `npm ci`: the registry mirror lacks some other platforms'
  // optional binaries that the lockfile names, which `npm ci` treats as an error.
  console.log('Installing dependencies (npm install)…');
  run(NPM, ['install', '--no-audit', '--no-fund']);
}

/** Builds the web app when its build is missing or older than any of its sources. */
export function ensureWebBuild({ force = false } = {}) {
  const built = path.join(ROOT, 'apps/web/dist/index.html');
  const sources = [
    'apps/web/src',
    'apps/web/index.html',
    'apps/web/vite.config.ts',
    'packages/shared/src',
  ];
  const newestSource = Math.max(...sources.map((source) => newestMtime(path.join(ROOT, source))));
  if (!force && fs.existsSync(built) && mtime(built) >= newestSource) return;
  console.log('Building the web app…');
  run(NPM, ['run', 'build', '-w', 'apps/web']);
}

function mtime(file) {
  return fs.statSync(file).mtimeMs;
}

function newestMtime(target) {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target))
    newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/** The command line that runs the TypeScript server (tsx loader, no separate build step). */
export function serverCommand() {
  return [process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/server/src/main.ts')]];
}
