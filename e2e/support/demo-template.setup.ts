import fs from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startServer } from './server';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A stopped demo server's data directory (migrated, seeded, devices linked): see startServer. */
    demoTemplateDir: string;
  }
}

/**
 * The browser pass's global set-up: one demo server starts from nothing (migrations, the demo
 * seed with its password hashes, the seeded readings) and stops, once per run. Every later
 * server of the pass starts on a copy of its data directory, as `npm start` does on its
 * second start, instead of seeding again (a first start costs about three restarts).
 */
export default async function setup(project: TestProject) {
  // No jobs: the copies must hold what a first start writes before its background sync runs.
  const server = await startServer({ fresh: true, env: { JOBS_ENABLED: 'false' } });
  await server.stop();
  project.provide('demoTemplateDir', server.dataDir);
  return () => fs.rmSync(server.dataDir, { recursive: true, force: true });
}
