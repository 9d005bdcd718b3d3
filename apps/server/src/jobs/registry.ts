import type { Config } from '../config/env';
import { createMailDeliverJob } from '../modules/mail/mail.job';
import { exportJobDefinitions } from '../modules/export/export.job';
import { createSyncJobs } from '../modules/sync/sync.jobs';
import { createCompletenessDigestJob } from './completeness-digest.job';
import { maintenanceJob } from './maintenance';
import type { JobDefinition } from './types';

/**
 * Every job the worker runs: the one list main.ts starts and the job tests start. Add a
 * feature's job (sync, export, retention, …) here. Handlers get the process's services
 * (`createServices`, services.ts) through their context; only queue settings come from the
 * configuration here (the export jobs' DATA_DIR, the sync run queue's time box).
 */
export function jobDefinitions(
  config: Pick<Config, 'DATA_DIR'> & Partial<Config>,
): readonly JobDefinition[] {
  return [
    maintenanceJob,
    createMailDeliverJob(),
    ...exportJobDefinitions(config),
    ...createSyncJobs({ runSeconds: config.SYNC_RUN_SECONDS ?? 120 }),
    createCompletenessDigestJob(),
  ];
}
