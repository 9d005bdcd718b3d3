import type { JobDefinition } from '../../jobs/types';
import { systemClock } from '../../lib/clock';
import { createMailService, purgeSentMails, type MailSettings } from './mail.service';

export const MAIL_DELIVER = 'mail.deliver';

/**
 * Every minute: delivers due outbox mails (retries with backoff; rows are claimed with
 * SKIP LOCKED, so any number of workers may run it) and purges sent mails older than the
 * retention period. A failing mail never fails the job; it is retried on a later run.
 * `settings` is read when the job runs (from the parsed configuration: jobs/registry.ts).
 */
export function createMailDeliverJob(settings: () => MailSettings): JobDefinition {
  return {
    name: MAIL_DELIVER,
    // At most one run active and one waiting: a slow run does not pile up cron jobs.
    queue: { policy: 'stately', retryLimit: 0, expireInSeconds: 10 * 60 },
    cron: '* * * * *',
    async handle(job, { database, logger }) {
      const service = createMailService({ db: database.db, settings: settings(), logger });
      const counts = await service.deliverPending();
      const purged = await purgeSentMails(database.db, systemClock.now());
      if (counts.sent + counts.failed + purged > 0) {
        logger.info({ job: job.name, jobId: job.id, ...counts, purged }, 'mail: delivery run');
      }
      return { ...counts, purged };
    },
  };
}
