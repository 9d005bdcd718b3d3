import type { Config } from '../config/env';
import { createMailDeliverJob, mailDeliverJob } from '../modules/mail/mail.job';
import { mailSettingsFromConfig } from '../modules/mail/mail.service';
import { maintenanceJob } from './maintenance';
import type { JobDefinition } from './types';

/** Every job the worker runs. Feature jobs (sync, export, mail, retention) are added here. */
export const JOB_DEFINITIONS: readonly JobDefinition[] = [maintenanceJob, mailDeliverJob];

/** The jobs with the parsed configuration (the mail job's SMTP settings come from it). */
export function jobDefinitionsFor(config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM'>): readonly JobDefinition[] {
  const settings = mailSettingsFromConfig(config);
  return [maintenanceJob, createMailDeliverJob(() => settings)];
}
