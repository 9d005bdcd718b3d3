import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import { REPO_ROOT } from '../config/paths';

/** The sources a server bundle is made of: its key changes with any of their files. */
const SOURCE_DIRS = ['apps/server/src', 'packages/shared/src', 'packages/provider-simulators/src'];
const BUNDLE_ROOT = path.join(REPO_ROOT, 'apps/server/dist/test-bundle');

let made: Promise<string> | undefined;

/**
 * The Node arguments that start the server (`apps/server/src/main.ts`) in a process of its
 * own, for the tests that start it (the browser pass's demo servers, the database fault and
 * process-role tests): one ES module bundling our own code (the server and the workspace
 * packages) with every npm package left to Node, built once per set of sources and kept
 * under apps/server/dist (decision 0279).
 *
 * Why not `node --import tsx main.ts`, as `npm start` runs: tsx resolves and loads each of the
 * ~600 modules of the server through its loader thread, ~3 s of CPU per start on the CI
 * machine before the server does anything, and a run starts the server ~35 times. The
 * bundle is made by esbuild, the compiler tsx itself uses, from the same files.
 */
export function serverNodeArgs(): Promise<string[]> {
  made ??= bundleServer();
  return made.then((file) => [file]);
}

async function bundleServer(): Promise<string> {
  const key = sourcesKey();
  const file = path.join(BUNDLE_ROOT, key, 'main.mjs');
  if (fs.existsSync(file)) return file;
  // Written under a name of its own and renamed into place: two test files (or runs)
  // bundling at once each rename a whole bundle, never leave half of one.
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.partial`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await build({
    entryPoints: [path.join(REPO_ROOT, 'apps/server/src/main.ts')],
    outfile: partial,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    plugins: [npmPackagesExternal],
    // Packages loaded through CommonJS `require` inside the bundle (none of ours, but an
    // external CommonJS helper may be): an ES module has no `require` of its own.
    banner: {
      js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
    },
  });
  fs.renameSync(partial, file);
  removeOtherBundles(key);
  return file;
}

/** Every bare import but our workspace packages stays an import (resolved by Node). */
const npmPackagesExternal: Plugin = {
  name: 'npm-packages-external',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@trialpulse/') ? undefined : { path: args.path, external: true },
    );
  },
};

/** A hash of every source file's path and contents (~0.05 s): the bundle's folder name. */
function sourcesKey(): string {
  const hash = createHash('sha256');
  for (const dir of SOURCE_DIRS) {
    const root = path.join(REPO_ROOT, dir);
    const files = fs
      .readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name))
      .sort();
    for (const file of files) hash.update(file).update('\0').update(fs.readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/** Bundles of older sources (and partial ones a killed run left) go. */
function removeOtherBundles(key: string): void {
  for (const name of fs.readdirSync(BUNDLE_ROOT))
    if (name !== key) fs.rmSync(path.join(BUNDLE_ROOT, name), { recursive: true, force: true });
}
