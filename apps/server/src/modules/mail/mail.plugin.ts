import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config/env';
import type { Database } from '../../db/client';
import { devMailboxRoutes } from './dev-mailbox.routes';
import { createMailService, mailSettingsFromConfig, type MailService } from './mail.service';

declare module 'fastify' {
  interface FastifyInstance {
    /** The mail outbox: `enqueue` inside your transaction, `deliverPending()` after commit. */
    mail: MailService;
  }
}

/**
 * Decorates `app.mail`. Delivery runs started by requests are tracked so that closing the
 * app waits for them (no half-recorded sends at shutdown). In demo mode it also serves the
 * dev mailbox (docs/decisions/0006-demo-mailbox.md).
 */
export const mailPlugin = fp(
  async (app: FastifyInstance, options: { config: Config; database: Database }) => {
    const service = createMailService({
      db: options.database.db,
      settings: mailSettingsFromConfig(options.config),
      logger: app.log,
    });
    const running = new Set<Promise<unknown>>();

    app.decorate('mail', {
      enqueue: (tx, mail) => service.enqueue(tx, mail),
      deliverPending() {
        const run = service.deliverPending();
        running.add(run);
        void run.finally(() => running.delete(run));
        return run;
      },
    } satisfies MailService);

    app.addHook('onClose', async () => {
      await Promise.allSettled([...running]);
    });

    if (options.config.isDemo) await app.register(devMailboxRoutes, { db: options.database.db });
  },
  { name: 'mail' },
);
