import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Repository root, so `.data` and the web build are found whatever the working directory:
 * the nearest folder above this module that holds the server's migrations. Found rather
 * than counted, so the tests' bundle of the server (test/server-bundle.ts, under
 * apps/server/dist) finds the same root as the source tree does.
 */
export const REPO_ROOT = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));
export const SERVER_ROOT = path.join(REPO_ROOT, 'apps/server');
export const MIGRATIONS_DIR = path.join(SERVER_ROOT, 'src/db/migrations');
export const WEB_DIST_DIR = path.join(REPO_ROOT, 'apps/web/dist');

function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'apps/server/src/db/migrations'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no repository root above ${start}`);
  }
}
