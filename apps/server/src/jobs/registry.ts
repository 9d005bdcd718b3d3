import type { Config } from '../config/env';
import { createMailDeliverJob } from '../modules/mail/mail.job';
import { mailSettingsFromConfig } from '../modules/mail/mail.service';
import { exportJobDefinitions } from '../modules/export/export.job';
import { maintenanceJob } from './maintenance';
import type { JobDefinition } from './types';

/**
 * Every job the worker runs: the one list main.ts starts and the job tests start. Add a
 * feature's job (sync, export, retention, …) here; it gets what it needs from the parsed
 * configuration (the mail job its SMTP settings).
 */
export function jobDefinitions(config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'DATA_DIR'>): readonly JobDefinition[] {
  const mailSettings = mailSettingsFromConfig(config);
  return [maintenanceJob, createMailDeliverJob(() => mailSettings), ...exportJobDefinitions(config)];
}
