import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Db } from '../../db/client';
import { devMailboxRoutes } from './dev-mailbox.routes';
import type { MailService } from './mail.service';

/** The mail service as the app uses it: delivery runs started by requests can be awaited. */
export type MailOutbox = MailService & {
  /** Resolves when every delivery run started so far has finished (app close). */
  settle(): Promise<void>;
};

/**
 * Wraps the mail service so the runs requests start are tracked: closing the app waits for
 * them (no half-recorded sends at shutdown). Built once in services.ts.
 */
export function createMailOutbox(service: MailService): MailOutbox {
  const running = new Set<Promise<unknown>>();
  return {
    enqueue: (tx, mail) => service.enqueue(tx, mail),
    deliverPending() {
      const run = service.deliverPending();
      running.add(run);
      void run.finally(() => running.delete(run));
      return run;
    },
    async settle() {
      await Promise.allSettled([...running]);
    },
  };
}

/**
 * The mail module's part of the app: closing waits for running deliveries; in demo mode it
 * also serves the dev mailbox (docs/decisions/0006-demo-mailbox.md).
 */
export const mailPlugin = fp(
  async (app: FastifyInstance, options: { mail: MailOutbox; db: Db; isDemo: boolean }) => {
    app.addHook('onClose', async () => {
      await options.mail.settle();
    });
    if (options.isDemo) await app.register(devMailboxRoutes, { db: options.db });
  },
  { name: 'mail' },
);
