import type { JobDefinition } from '../../jobs/types';
import { purgeSentMails } from './mail.service';

export const MAIL_DELIVER = 'mail.deliver';

/**
 * Every minute: delivers due outbox mails (retries with backoff; rows are claimed with
 * SKIP LOCKED, so any number of workers may run it) and purges sent mails older than the
 * retention period. A failing mail never fails the job; it is retried on a later run.
 * Delivery is the process's mail service (`services.mail`, SMTP settings from the
 * configuration: services.ts); "now" is the process's clock.
 */
export function createMailDeliverJob(): JobDefinition {
  return {
    name: MAIL_DELIVER,
    // At most one run active and one waiting: a slow run does not pile up cron jobs.
    queue: { policy: 'stately', retryLimit: 0, expireInSeconds: 10 * 60 },
    cron: '* * * * *',
    async handle(job, { database, logger, services }) {
      const counts = await services.mail.deliverPending();
      const purged = await purgeSentMails(database.db, services.clock.now());
      if (counts.sent + counts.failed + purged > 0) {
        logger.info({ job: job.name, jobId: job.id, ...counts, purged }, 'mail: delivery run');
      }
      return { ...counts, purged };
    },
  };
}
