import type { JobDefinition } from './types';

export const COMPLETENESS_DIGEST = 'completeness.digest';

/**
 * Every day at 06:00 UTC: the alert digest of the day (decision 0052). The mails go to the
 * outbox; the `mail.deliver` job sends them. A second run of the same day sends nothing.
 * The digest is the process's (`services.completenessDigest`, built by createServices): its
 * clock decides the day and "now" of each run (tests inject theirs there).
 */
export function createCompletenessDigestJob(): JobDefinition {
  return {
    name: COMPLETENESS_DIGEST,
    queue: { policy: 'stately', retryLimit: 3, retryDelay: 300, expireInSeconds: 30 * 60 },
    cron: '0 6 * * *',
    async handle(job, { logger, services }) {
      const result = await services.completenessDigest.run();
      logger.info({ job: job.name, jobId: job.id, ...result }, 'completeness: digest run');
      return result;
    },
  };
}
