import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../config/paths';

/** The product version, from the root package.json (read once). */
export const APP_VERSION: string = JSON.parse(
  fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'),
).version;
