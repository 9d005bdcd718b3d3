import { mailDeliverJob } from '../modules/mail/mail.job';
import { maintenanceJob } from './maintenance';
import type { JobDefinition } from './types';

/** Every job the worker runs. Feature jobs (sync, export, mail, retention) are added here. */
export const JOB_DEFINITIONS: readonly JobDefinition[] = [maintenanceJob, mailDeliverJob];
