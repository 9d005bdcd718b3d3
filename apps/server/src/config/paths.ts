import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Repository root, so `.data` and the web build are found whatever the working directory. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
export const SERVER_ROOT = path.join(REPO_ROOT, 'apps/server');
export const MIGRATIONS_DIR = path.join(SERVER_ROOT, 'src/db/migrations');
export const WEB_DIST_DIR = path.join(REPO_ROOT, 'apps/web/dist');
