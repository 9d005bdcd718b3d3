import PgBoss from 'pg-boss';
import type { Database } from '../db/client';
import { logPgBossError } from './boss';
import type { JobDefinition, JobLogger } from './types';

/** What a request handler needs to hand work to the workers. */
export type JobQueue = {
  /** Enqueues one job on a queue of `definitions`; answers the pg-boss job id. */
  send(name: string, data: object, options?: PgBoss.SendOptions): Promise<string | null>;
  /** Stops the sending connection (the app's onClose). */
  stop(): Promise<void>;
};

/**
 * A send-only pg-boss on the application database, for web processes: no workers, no
 * scheduler, no supervision (the worker processes do that). Started on the first send, so a
 * process that never enqueues opens nothing. Creates the queues it sends to (idempotent:
 * pg-boss's create_queue ignores an existing one), with the options of their definitions.
 */
export function createJobQueue(
  database: Database,
  definitions: readonly Pick<JobDefinition, 'name' | 'queue'>[],
  logger?: JobLogger,
): JobQueue {
  let started: Promise<PgBoss> | undefined;
  let stopped = false;

  const start = async (): Promise<PgBoss> => {
    const common = { supervise: false, schedule: false, migrate: true } as const;
    const boss =
      database.kind === 'postgres'
        ? new PgBoss({
            ...common,
            connectionString: database.connectionString!,
            max: 2,
            application_name: 'trialpulse-send',
          })
        : new PgBoss({ ...common, db: database.executor as PgBoss.Db });
    // Its pool's idle connections dropped by a restart, etc.: logged, never an unhandled
    // 'error' event (a send itself rejects to its caller).
    boss.on('error', (error) => {
      if (!stopped && logger) logPgBossError(logger, error);
    });
    await boss.start();
    for (const definition of definitions)
      await boss.createQueue(definition.name, { name: definition.name, ...definition.queue });
    return boss;
  };

  return {
    async send(name, data, options = {}) {
      if (stopped) throw new Error('job queue stopped');
      started ??= start().catch((error: unknown) => {
        started = undefined;
        throw error;
      });
      const boss = await started;
      return boss.send(name, data, options);
    },
    async stop() {
      stopped = true;
      if (!started) return;
      const boss = await started.catch(() => undefined);
      await boss?.stop({ graceful: false, wait: true, close: true });
    },
  };
}
