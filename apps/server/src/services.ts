import type { Config } from './config/env';
import type { Database } from './db/client';
import type { JobLogger } from './jobs/types';
import type { Clock } from './lib/clock';
import type { PasswordHasher } from './lib/passwords';
import { createAccessRepository } from './modules/access/access.repository';
import { createAccessService } from './modules/access/access.service';
import { createAuthRepository } from './modules/auth/auth.repository';
import { createAccountsService } from './modules/auth/accounts.service';
import { createAuthService } from './modules/auth/auth.service';
import { createBackendClientsRepository } from './modules/backend-clients/backend-clients.repository';
import { createBackendClientsService } from './modules/backend-clients/backend-clients.service';
import { backendTokenKey } from './modules/backend-clients/backend-tokens';
import { tokenEndpointUrl } from './modules/backend-clients/smart.routes';
import { createContactService } from './modules/contact/contact.service';
import { createProviderRegistry } from './modules/devices/core/provider-registry';
import type { ProviderSettings } from './modules/devices/core/provider-settings';
import {
  createConnectionHealth,
  createDeviceConnectionsService,
} from './modules/devices/device-connections.service';
import { createDeviceLinkingService } from './modules/devices/device-linking.service';
import { createDevicesRepository } from './modules/devices/devices.repository';
import { createDevicesService } from './modules/devices/devices.service';
import { createDeviceStatusService } from './modules/devices/device-status.service';
import { createDeviceDataService } from './modules/device-data/device-data.service';
import { createDeviceDataRepository } from './modules/device-data/device-data.repository';
import { createFitbitDataService, createFitbitRawService } from './providers';
import { createHumanCheck } from './modules/human-check/human-check.plugin';
import { createDatabaseReplayStore } from './modules/human-check/human-check.repository';
import { createHumanCheckService } from './modules/human-check/human-check.service';
import { createMailOutbox } from './modules/mail/mail.plugin';
import { createMetricsAccess } from './modules/metrics/metrics.access';
import { createMetricsRepository } from './modules/metrics/metrics.repository';
import { createMetricsService } from './modules/metrics/metrics.service';
import { createMailService, mailSettingsFromConfig } from './modules/mail/mail.service';
import { createParticipantAccountsRepository } from './modules/participant-accounts/participant-accounts.repository';
import { createParticipantAccountsService } from './modules/participant-accounts/participant-accounts.service';
import { createParticipantsRepository } from './modules/participants/participants.repository';
import { createParticipantsService } from './modules/participants/participants.service';
import { createPasswordsRepository } from './modules/passwords/passwords.repository';
import { createPasswordsService } from './modules/passwords/passwords.service';
import { createSfaRepository } from './modules/sfa/sfa.repository';
import { createSfaService, initialAuthStatusFrom } from './modules/sfa/sfa.service';
import { createSignupRepository } from './modules/signup/signup.repository';
import { createSignupService } from './modules/signup/signup.service';
import { createSysAdminRepository } from './modules/sysadmin/sysadmin.repository';
import { createSysAdminService } from './modules/sysadmin/sysadmin.service';
import { createTeamAdminRepository } from './modules/team-admin/team-admin.repository';
import { createTeamAdminService } from './modules/team-admin/team-admin.service';
import { createTeamsRepository } from './modules/teams/teams.repository';
import { createTeamsService } from './modules/teams/teams.service';
import { createTrialUsersService } from './modules/trials/trial-users.service';
import { createTrialsRepository } from './modules/trials/trials.repository';
import { createTrialsService } from './modules/trials/trials.service';
import { createCompletenessRepository } from './modules/completeness/completeness.repository';
import { createCompletenessService } from './modules/completeness/completeness.service';
import { createJobQueue } from './jobs/queue';
import { EXPORT_SEND_QUEUES, exportStorageFor } from './modules/export/export.job';
import { createExportRepository } from './modules/export/export.repository';
import { createExportService } from './modules/export/export.service';
import { createFhirBulkService } from './modules/fhir-bulk/fhir-bulk.service';
import { createReadingsRepository } from './modules/sync/readings.repository';
import { createReadingsService } from './modules/sync/readings.service';
import { createSyncService, type SyncServiceDeps } from './modules/sync/sync.service';
import { createCompletenessDigest } from './modules/completeness/completeness-digest';
import { createRowsBuilder } from './modules/completeness/completeness.service';
import { createSyncStatusService } from './modules/sync/sync-status.service';
import { createWeeklySummaryService } from './modules/sync/weekly-summary.service';
import { createSyncRepository, createSyncRunsRepository } from './modules/sync/sync.repository';
import type { EnqueueSync } from './modules/sync/webhooks.routes';

export type ServiceDeps = {
  config: Config;
  database: Database;
  clock: Clock;
  hasher: PasswordHasher;
  /** Provider clients' settings (simulators in demo mode and tests). */
  providers: ProviderSettings;
  logger: JobLogger;
  /** Queues a device sync (pg-boss in the running process): a new connection's backfill. */
  enqueueSync?: EnqueueSync;
  /** The sync's bounds and tests' overrides; run time box and backfill default from the configuration. */
  sync?: SyncOptions;
};

/** What a caller may set of the sync service (tests: lease length and clock, sources, log). */
export type SyncOptions = Partial<
  Pick<
    SyncServiceDeps,
    | 'runSeconds'
    | 'maxBackfillDays'
    | 'leaseMs'
    | 'leaseClock'
    | 'leaseRenewMs'
    | 'renewForMs'
    | 'attemptClock'
    | 'log'
    | 'sources'
  >
>;

/**
 * The composition root: every service of the application is built here, once, with only
 * the dependencies it uses (each factory's `deps` type says which), on one clock. Route
 * plugins receive the services they serve (`app.ts` registers them) and job handlers the
 * same services through their context (`startJobs({ services })`); neither builds one.
 * main.ts builds them once per process; tests build theirs with `test/test-services.ts`.
 *
 * To add a service: create `modules/<feature>/<feature>.repository.ts` and
 * `<feature>.service.ts` (factory `createXxxService(deps)` with a narrowed deps type, e.g.
 * `access: Pick<AccessService, 'requireTrial'>`), build it below after what it needs,
 * return it, and register its routes in `app.ts` with `{ xxx: services.xxx }`.
 */
export function createServices(deps: ServiceDeps) {
  const { config, database, clock, hasher } = deps;
  const db = database.db;
  const encryptionKey = config.TOKEN_ENCRYPTION_KEY;
  /** The public address (config: without a trailing slash); links in mails are built on it. */
  const publicUrl = config.PUBLIC_URL;

  // Cross-cutting: mail outbox, human check, access checks.
  const mail = createMailOutbox(
    createMailService({ db, settings: mailSettingsFromConfig(config), logger: deps.logger }),
  );
  // Spent ALTCHA challenges in the database: one payload counts once across web processes.
  const humanCheckService = createHumanCheckService({
    config,
    logger: deps.logger,
    replayStore: createDatabaseReplayStore(db),
  });
  const humanCheck = createHumanCheck(humanCheckService);
  const access = createAccessService({ repository: createAccessRepository(db) });
  // SMART Backend Services clients (issue 31): the token endpoint and the /fhir guard.
  const backendClients = createBackendClientsService({
    repository: createBackendClientsRepository(db),
    access,
    clock,
    tokenKey: backendTokenKey(config.APP_SECRET),
    tokenEndpoint: tokenEndpointUrl(publicUrl),
  });

  // Sign-in, second factor and accounts. The second factor decides the status a sign-in
  // starts in (remembered device or not).
  const authRepository = createAuthRepository(db);
  const sfaRepository = createSfaRepository(db);
  const auth = createAuthService({
    repository: authRepository,
    hasher,
    clock,
    appSecret: config.APP_SECRET,
    encryptionKey,
    initialAuthStatus: initialAuthStatusFrom(sfaRepository, clock),
  });
  const accounts = createAccountsService({ repository: authRepository });
  const teams = createTeamsService({ repository: createTeamsRepository(db), sessions: accounts });
  const sfa = createSfaService({
    repository: sfaRepository,
    accounts,
    authService: auth,
    mail: () => mail,
    clock,
    encryptionKey,
  });
  const passwords = createPasswordsService({
    repository: createPasswordsRepository(db),
    accounts,
    hasher,
    clock,
    mail,
    publicUrl,
  });
  const signup = createSignupService({
    repository: createSignupRepository(db),
    hasher,
    clock,
    mail,
    publicUrl,
    accounts,
    teams,
  });
  const participantAccounts = createParticipantAccountsService({
    repository: createParticipantAccountsRepository(db),
    hasher,
    clock,
    authService: auth,
    accounts,
    mail: () => mail,
    publicUrl,
  });
  const contact = createContactService({ database, mail, supportEmail: config.SUPPORT_EMAIL });

  // Teams, trials, participants.
  const teamAdmin = createTeamAdminService({
    repository: createTeamAdminRepository(db),
    hasher,
    accounts,
    teams,
  });

  // Devices. Deleting a participant (alone or with its trial) revokes its provider grants
  // first (decision 0019): the participants service calls back into the devices service.
  const devicesRepository = createDevicesRepository(db);
  const providers = createProviderRegistry(deps.providers, { clock });
  const deviceConnections = createDeviceConnectionsService({
    repository: devicesRepository,
    providers,
    clock,
    encryptionKey,
  });
  const participants = createParticipantsService({
    repository: createParticipantsRepository(db),
    access,
    beforeDelete: (teamId, participantId, meta) =>
      devices.revokeBeforeDelete(teamId, participantId, meta),
    // Trials and participants call each other (codes; the trial cascade): built just below.
    trials: { trialCode: (q, trial) => trials.trialCode(q, trial) },
    // Stored readings are built further down (on devices and access).
    readings: {
      countOfParticipant: (tx, teamId, id) => readings.countOfParticipant(tx, teamId, id),
    },
    teams,
    teamAdmin,
  });
  const trialsRepository = createTrialsRepository(db);
  const trials = createTrialsService({ repository: trialsRepository, access, participants, teams });
  const trialUsers = createTrialUsersService({ repository: trialsRepository, access });
  const devices = createDevicesService({
    repository: devicesRepository,
    access,
    connections: deviceConnections,
    status: createDeviceStatusService({
      repository: devicesRepository,
      connections: deviceConnections,
      clock,
    }),
    clock,
    linking: createDeviceLinkingService({
      repository: devicesRepository,
      providers,
      clock,
      encryptionKey,
      publicUrl,
      mail: () => mail,
      ...(deps.enqueueSync && {
        onLinked: (connectionId: number) =>
          deps.enqueueSync!({ connectionId, kind: 'backfill', force: true }),
      }),
      log: (obj, msg) => deps.logger.warn(obj, msg),
    }),
  });

  // Batch export: requests enqueue runs through a send-only queue; workers build the files.
  const jobQueue = createJobQueue(database, EXPORT_SEND_QUEUES, deps.logger);
  const exports = createExportService({
    repository: createExportRepository(db),
    access,
    storage: exportStorageFor(config),
    queue: jobQueue,
    clock,
    log: (obj, msg) => deps.logger.warn(obj, msg),
    // Built below, with the data views.
    readings: {
      participantsWithReadings: (teamId, brand, participantIds) =>
        readings.participantsWithReadings(teamId, brand, participantIds),
    },
    // Built below: the metrics the team stores (the form and the refusal, issue 28).
    metrics: { storedMetricKeys: (teamId, deviceId) => metrics.storedMetricKeys(teamId, deviceId) },
  });
  // FHIR Bulk Data for backend clients (issue 31), on the export machinery.
  const fhirBulk = createFhirBulkService({ exports, publicUrl });

  // Data governance: device metric settings, team selections, the Database Info lists.
  const metricsRepository = createMetricsRepository(db);
  const metrics = createMetricsService({
    repository: metricsRepository,
    access: createMetricsAccess({ repository: metricsRepository, access }),
    // Built below, with the data views.
    readings: {
      countOfTeamMetric: (teamId, metricKey, brands) =>
        readings.countOfTeamMetric(teamId, metricKey, brands),
    },
  });
  const sysAdmin = createSysAdminService({ repository: createSysAdminRepository(db) });

  // Stored device readings (other modules read them through `readings`), sync status and the
  // data views built on them (stored when the sync covers a range, else live through the
  // device connection).
  const readings = createReadingsService({
    readings: createReadingsRepository(db),
    sync: createSyncRepository(db),
    now: () => clock.now(),
  });
  const fitbitData = createFitbitDataService({
    access,
    connections: deviceConnections,
    repository: createDeviceDataRepository(db),
    readings,
    clock,
  });
  const fitbitRaw = createFitbitRawService({ access, connections: deviceConnections, clock });
  const deviceData = createDeviceDataService({
    access,
    participants,
    connections: deviceConnections,
    readings,
    clock,
  });

  const syncRuns = createSyncRunsRepository(db);
  const syncStatus = createSyncStatusService({
    access,
    runs: syncRuns,
    readings,
    clock,
  });
  const weeklySummary = createWeeklySummaryService({ db, access, readings, clock });
  // Data completeness (issue 20): stored readings (sync) and connection health (devices).
  const completeness = createCompletenessService({
    repository: createCompletenessRepository(db),
    access,
    readings,
    devices,
    clock,
  });

  // Worker side: the device sync (readings write path, token refresh, call budgets) and the
  // daily completeness digest, on the same readings, connections, mail and clock.
  const sync = createSyncService({
    runs: syncRuns,
    readings,
    connections: deviceConnections,
    providers: deps.providers,
    clock,
    runSeconds: config.SYNC_RUN_SECONDS ?? 120,
    maxBackfillDays: config.SYNC_BACKFILL_DAYS ?? (config.isDemo ? 60 : 365),
    ...deps.sync,
  });
  const completenessDigest = createCompletenessDigest({
    repository: createCompletenessRepository(db),
    rowsFor: createRowsBuilder({
      readings,
      devices: createConnectionHealth({ repository: devicesRepository }),
      clock,
    }),
    mail,
    publicUrl,
    clock,
  });

  return {
    /** The process's clock (jobs read "now" from it). */
    clock,
    /** The session lookup the auth guard runs on every request. */
    sessions: authRepository as Pick<typeof authRepository, 'loadSessionContext'>,
    mail,
    humanCheck,
    humanCheckService,
    access,
    backendClients,
    auth,
    sfa,
    passwords,
    signup,
    participantAccounts,
    contact,
    teams,
    teamAdmin,
    trials,
    trialUsers,
    participants,
    devices,
    fitbitData,
    fitbitRaw,
    exports,
    fhirBulk,
    /** Enqueues jobs from requests; app.ts stops it on close. */
    jobQueue,
    readings,
    deviceData,
    syncStatus,
    /** Provider notifications find the connections of a provider's user here. */
    syncRuns: syncRuns as Pick<typeof syncRuns, 'connectionIdsOfProviderUser'>,
    weeklySummary,
    metrics,
    sysAdmin,
    completeness,
    sync,
    completenessDigest,
  };
}

export type Services = ReturnType<typeof createServices>;
