import fs from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startServer } from './server';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A stopped demo server's data directory (migrated, seeded, devices linked and synced): see startServer. */
    demoTemplateDir: string;
  }
}

/**
 * How long the template waits for its start-up sync. A budget, not a requirement: a copy
 * whose connections the template did not finish syncing syncs them itself when it starts,
 * as every copy did before the template synced (decision 0281).
 */
const SYNCED_WITHIN_MS = 180_000;

/**
 * The browser pass's global set-up: one demo server starts from nothing (migrations, the demo
 * seed with its password hashes, the seeded readings), runs its start-up sync of every demo
 * connection (one day, SYNC_BACKFILL_DAYS as every copy) and stops, once per run. Every later
 * server of the pass starts on a copy of its data directory, as `npm start` does on its
 * second start, instead of seeding again (a first start costs about three restarts), and its
 * own start-up sync then finds the cursors near now: it fetches minutes instead of a day
 * (~6 s less CPU per server on the 2-core machine, ~20 servers a run; decision 0281).
 */
export default async function setup(project: TestProject) {
  const sync = startUpSyncWatcher();
  const server = await startServer({ fresh: true, onLogLine: sync.onLogLine });
  try {
    await sync.done(SYNCED_WITHIN_MS);
  } finally {
    await server.stop();
  }
  project.provide('demoTemplateDir', server.dataDir);
  return () => fs.rmSync(server.dataDir, { recursive: true, force: true });
}

/**
 * Follows the server's log until the start-up sync has ended for every connection it queued:
 * the scheduler's `sync: scheduled` line gives their number, and each connection's last
 * `sync: connection run` line must not ask for a follow-up run (`continueAt`).
 */
function startUpSyncWatcher() {
  let scheduled: number | null = null;
  const pendingFollowUp = new Map<number, boolean>();
  let notify = () => {};
  const finished = () =>
    scheduled !== null &&
    pendingFollowUp.size >= scheduled &&
    [...pendingFollowUp.values()].every((pending) => !pending);
  return {
    onLogLine(line: Record<string, unknown>) {
      if (line.msg === 'sync: scheduled' && typeof line.connections === 'number')
        scheduled ??= line.connections;
      else if (line.msg === 'sync: connection run' && typeof line.connectionId === 'number')
        pendingFollowUp.set(line.connectionId, line.continueAt != null);
      else return;
      if (finished()) notify();
    },
    done(withinMs: number): Promise<void> {
      if (finished()) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          console.warn(
            `demo template: start-up sync not finished within ${withinMs / 1000} s (${pendingFollowUp.size} of ${scheduled ?? '?'} connections ran); its copies sync the rest themselves`,
          );
          resolve();
        }, withinMs);
        notify = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
  };
}
