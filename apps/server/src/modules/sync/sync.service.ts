import { randomUUID } from 'node:crypto';
import { DEVICE_ERROR_REASONS } from '@trialpulse/shared';
import type { DeviceUpstream, SyncRunKind, SyncRunOutcome } from '../../db/schema';
import { systemClock, type Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import { isDatabaseUnavailable } from '../../lib/db-errors';
import { createProviderHttp, type ProviderHttp } from '../devices/core/provider-client';
import {
  ProviderError,
  ProviderGoneError,
  ProviderPermissionError,
  ProviderRateLimitedError,
  errorTypeOf,
  providerErrorFromResponse,
} from '../devices/core/provider-errors';
import type { ProviderSettings } from '../devices/core/provider-settings';
import type { DeviceConnectionsService } from '../devices/device-connections.service';
import type { ReadingsService } from './readings.service';
import { SYNC_SOURCES } from './sources';
import {
  DAY_MS,
  windowsOf,
  type CallBudget,
  type FetchContext,
  type SourceRequest,
  type SyncSource,
  type SyncStream,
} from './sources/types';
import {
  SYNC_LEASE_LOST,
  type CursorRow,
  type EnabledMetric,
  type SyncConnection,
  type SyncRunsRepository,
} from './sync.repository';

/**
 * Syncs one connection (decision 0036): for each provider stream whose metrics are enabled
 * in both layers, from its cursor less a look-back (the last day is never final) — or, the
 * first time, from the backfill start — up to now, in the largest windows the provider
 * allows. Each window's readings and the cursors move in one transaction, so a run that is
 * stopped (time box, quota, a killed process) resumes from the last window it stored.
 */

/** Every incremental run re-reads this much before the cursor: late uploads, the day not yet final. */
export const SYNC_LOOKBACK_MS = DAY_MS;
/** How often a stream is due: intraday metrics every 15 minutes, daily summaries once a day. */
export const SYNC_CADENCE_MS = { intraday: 15 * 60_000, daily: DAY_MS } as const;
/** The scheduler queues every syncable connection at each quarter hour (`sync.schedule`). */
export const SYNC_SCHEDULE_MINUTES = 15;

/** The scheduler's first tick after `at` (:00, :15, :30, :45). */
export function nextScheduleTick(at: Date): Date {
  const step = SYNC_SCHEDULE_MINUTES * 60_000;
  return new Date(Math.floor(at.getTime() / step) * step + step);
}
/** A stream counts as due a little before its cadence is over (the scheduler's 15-minute tick). */
const DUE_GRACE_MS = 5 * 60_000;
/** A backfill never goes further back than this. */
export const MAX_BACKFILL_DAYS = 365;
/** After three 403s in a row the connection rests this long (consent or account problem). */
export const FORBIDDEN_BACKOFF_MS = 6 * 60 * 60_000;
export const FORBIDDEN_LIMIT = 3;
/** Other provider failures: try again at the next cycle. */
const FAILURE_BACKOFF_MS = 15 * 60_000;
/** A run cut short by the database going away continues this soon (pg-boss's own retry delay). */
export const DATABASE_RETRY_MS = 30_000;
/**
 * How long a connection's lease lasts past its last renewal. A run renews it every quarter
 * of this and at each window it stores, so a dead worker's lease runs out within a minute
 * and the recovery takes its run over (decision 0121).
 */
export const SYNC_LEASE_MS = 60_000;

/**
 * How long pg-boss lets one attempt of a connection's job run before it takes the worker
 * for dead and retries (the queue's expireInSeconds): well past the time box, since a run
 * finishes the window it is in when the time box ends. A run renews its lease in the
 * background no longer than this (decision 0121).
 */
export function syncAttemptSeconds(runSeconds: number): number {
  return runSeconds * 2 + 60;
}

export type SyncRunResult = {
  outcome: SyncRunOutcome | 'skipped' | 'busy';
  runId?: number;
  /** When a later job should go on (time box reached, quota, lease held by another worker). */
  continueAt?: Date;
  /**
   * The streams a run that stopped early did not finish. The follow-up syncs them whether
   * due or not: a time box reached just before a window of a few minutes leaves a cursor
   * that looks fresh, and a follow-up that waited for the cadence would do nothing.
   */
  continueStreams?: string[];
  providerCalls: number;
  inserted: number;
  updated: number;
  /** Stored readings deleted because a fully fetched window no longer held them (decision 0112). */
  deleted: number;
  errorType?: string | null;
};

export type SyncOptions = {
  kind: SyncRunKind;
  /**
   * The job; a fresh id when run directly. Each attempt holds the lease under its own name
   * (`<owner>#<attempt>`, written as the run's job id): pg-boss retries an expired attempt
   * under the same job id while the first may still be alive, and two attempts sharing one
   * lease would keep each other's runs open (decision 0121).
   */
  owner: string;
  /** Only these provider streams (a webhook's data type); default all. */
  streams?: readonly string[];
  /** Ignore cadence: every enabled stream is due (webhook, manual, backfill). */
  force?: boolean;
};

/** The call budget is spent: no call before `retryAt`. */
export class CallBudgetExhaustedError extends Error {
  constructor(readonly retryAt: Date) {
    super(`Call budget spent until ${retryAt.toISOString()}.`);
  }
}

class TimeBoxReachedError extends Error {}
/** The run's lease ran out or another run took it: the run stops writing. */
class LeaseLostError extends Error {}

export type SyncServiceDeps = {
  runs: SyncRunsRepository;
  readings: ReadingsService;
  connections: DeviceConnectionsService;
  providers: ProviderSettings;
  clock: Clock;
  /** Longest a run works before it hands over to a follow-up job (default 120 s). */
  runSeconds?: number;
  /** The lease's length past each renewal (default SYNC_LEASE_MS; tests shorten it). */
  leaseMs?: number;
  /** The lease's clock: real time, shared with the recovery (default the system clock; not the provider clock, which tests freeze). */
  leaseClock?: Clock;
  /** How often a run renews its lease in the background (default a quarter of its length). */
  leaseRenewMs?: number;
  /** How long after its start a run renews its lease in the background (default syncAttemptSeconds; tests shorten it). */
  renewForMs?: number;
  /** The clock `renewForMs` runs on: pg-boss's wall time (default the system clock; tests move it, so a slow machine cannot end the renewal early). */
  attemptClock?: Clock;
  /** The backfill bound in days (demo: 60); default 365. */
  maxBackfillDays?: number;
  sources?: Partial<Record<DeviceUpstream, SyncSource>>;
  log?: (obj: object, msg: string) => void;
};

export function createSyncService(deps: SyncServiceDeps) {
  const { runs, readings, connections, clock } = deps;
  const sources = deps.sources ?? SYNC_SOURCES;
  const runMs = (deps.runSeconds ?? 120) * 1000;
  const leaseMs = deps.leaseMs ?? SYNC_LEASE_MS;
  const leaseClock = deps.leaseClock ?? systemClock;
  const attemptClock = deps.attemptClock ?? systemClock;
  const maxBackfillDays = Math.min(MAX_BACKFILL_DAYS, deps.maxBackfillDays ?? MAX_BACKFILL_DAYS);
  const https = new Map<DeviceUpstream, ProviderHttp>();
  const httpOf = (upstream: DeviceUpstream): ProviderHttp | undefined => {
    const config = deps.providers[upstream];
    if (!config) return undefined;
    let http = https.get(upstream);
    if (!http) {
      http = createProviderHttp({ ...config, retry: { maxAttempts: 1 } }, { clock });
      https.set(upstream, http);
    }
    return http;
  };

  /** Where a metric's backfill starts: enrolment, within the retention horizon, at most the bound. */
  function backfillStart(
    connection: SyncConnection,
    metric: EnabledMetric,
    stream: SyncStream,
    now: Date,
  ): Date {
    const days = Math.min(maxBackfillDays, metric.retentionDays);
    const start = new Date(
      Math.max(connection.enrolledAt.getTime(), now.getTime() - days * DAY_MS),
    );
    return stream.cadence === 'daily' ? floorDay(start) : start;
  }

  async function syncConnection(
    connectionId: number,
    options: SyncOptions,
  ): Promise<SyncRunResult> {
    const none = { providerCalls: 0, inserted: 0, updated: 0, deleted: 0 };
    const connection = await runs.connection(connectionId);
    const source = connection && sources[connection.upstream];
    const http = connection && httpOf(connection.upstream);
    if (!connection || !source || !http) return { outcome: 'skipped', ...none };
    if (connection.needsReconsent) return { outcome: 'needs_reconsent', ...none };
    if (connection.authorizationStatus !== 'authorized' || !connection.hasRefreshToken)
      return { outcome: 'skipped', ...none };

    const startedAt = clock.now();
    const state = await runs.state(connectionId);
    if (state?.backoffUntil && state.backoffUntil > startedAt) {
      return { outcome: 'backed_off', continueAt: state.backoffUntil, ...none };
    }
    const deadline = Date.now() + runMs;
    // A short lease, renewed while the run works; a killed worker's lease simply runs out.
    const leaseFrom = leaseClock.now();
    const owner = `${options.owner}#${randomUUID().slice(0, 8)}`;
    const leaseHeld = await runs.acquireLease(
      connectionId,
      connection.teamId,
      owner,
      leaseFrom,
      new Date(leaseFrom.getTime() + leaseMs),
    );
    if (leaseHeld) return { outcome: 'busy', continueAt: leaseHeld, ...none };

    const lease = leaseOf(
      connectionId,
      owner,
      attemptClock.now().getTime() + (deps.renewForMs ?? syncAttemptSeconds(runMs / 1000) * 1000),
    );
    try {
      return await runLeased(
        connection,
        source,
        http,
        { ...options, owner },
        startedAt,
        deadline,
        lease,
      );
    } finally {
      lease.stop();
      await runs.releaseLease(connectionId, owner);
    }
  }

  /**
   * The run's hold on its lease: renewed every quarter of its length in the background, and
   * by `hold` inside each transaction that writes (which also fences: it throws when the
   * lease is gone, so that transaction never commits). Once lost, it stays lost. The
   * background renewal ends when pg-boss gives the attempt up (`renewUntil`): a healthy run,
   * even one finishing a slow window past its time box, is done by then, and one hung in a
   * call that never returns must not hold the connection forever — its lease runs out a
   * lease length later and the recovery closes its run.
   */
  function leaseOf(connectionId: number, owner: string, renewUntil: number) {
    const lease = {
      lost: false,
      async hold(tx: Parameters<SyncRunsRepository['renewLease']>[0]): Promise<void> {
        if (lease.lost) throw new LeaseLostError();
        const now = leaseClock.now();
        if (
          !(await runs.renewLease(tx, connectionId, owner, now, new Date(now.getTime() + leaseMs)))
        ) {
          lease.lost = true;
          throw new LeaseLostError();
        }
      },
      stop: () => clearInterval(timer),
    };
    const timer = setInterval(
      () => {
        if (attemptClock.now().getTime() > renewUntil) return void clearInterval(timer);
        if (lease.lost) return;
        const now = leaseClock.now();
        runs
          .renewLease(runs.db, connectionId, owner, now, new Date(now.getTime() + leaseMs))
          .then((held) => void (held || (lease.lost = true)))
          // The database away: the next window's renewal says whether the lease is still ours.
          .catch(() => undefined);
      },
      deps.leaseRenewMs ?? Math.floor(leaseMs / 4),
    );
    timer.unref();
    return lease;
  }

  async function runLeased(
    connection: SyncConnection,
    source: SyncSource,
    http: ProviderHttp,
    options: SyncOptions,
    startedAt: Date,
    deadline: number,
    lease: ReturnType<typeof leaseOf>,
  ): Promise<SyncRunResult> {
    const enabled = new Map(
      (await runs.enabledMetrics(connection.id)).map((metric) => [metric.metricKey, metric]),
    );
    const cursors = new Map(
      (await runs.cursorsOfConnection(connection.id)).map((cursor) => [cursor.metricKey, cursor]),
    );
    const plan = source.streams
      .filter((stream) => !options.streams || options.streams.includes(stream.key))
      .map((stream) => ({ stream, metrics: stream.metrics.filter((key) => enabled.has(key)) }))
      .filter(
        ({ stream, metrics }) =>
          metrics.length > 0 && (options.force || isDue(stream, metrics, cursors, startedAt)),
      );
    const totals = { providerCalls: 0, inserted: 0, updated: 0, deleted: 0 };
    if (plan.length === 0) return { outcome: 'succeeded', ...totals };

    const runId = await runs.startRun({
      teamId: connection.teamId,
      participantDeviceId: connection.id,
      upstream: connection.upstream,
      kind: options.kind,
      jobId: options.owner,
      metrics: plan.flatMap(({ metrics }) => metrics),
      startedAt,
    });
    const windowsDone: Array<{
      stream: string;
      from: string;
      to: string;
      rows: number;
      mirrored?: boolean;
      deleted?: number;
    }> = [];
    // A window is mirrored only when this connection is the participant's only one of the
    // brand: readings carry no connection, and two accounts' mirrors would delete each
    // other's rows (decision 0112).
    const soleOfBrand = (
      await runs.connectionsOfParticipant(connection.teamId, connection.participantId)
    ).every((other) => other.id === connection.id || other.brand !== connection.brand);
    const budgets = source.budgets(connection.id);
    const request = (req: SourceRequest) => providerCall(connection, http, budgets, req, totals);

    let outcome: SyncRunOutcome = 'succeeded';
    let errorType: string | null = null;
    let continueAt: Date | undefined;
    let backoffUntil: Date | null = null;
    let backoffReason: string | null = null;
    let forbidden = 0;
    let unfinishedFrom = 0;
    const previousState = await runs.state(connection.id);
    try {
      for (const [index, { stream, metrics }] of plan.entries()) {
        unfinishedFrom = index;
        const now = clock.now();
        const starts = metrics.map((key) => {
          const cursor = cursors.get(key);
          const from = backfillStart(connection, enabled.get(key)!, stream, now);
          const backfillFrom = cursor?.backfillFrom ?? from;
          if (!cursor?.syncedUntil)
            return { key, backfillFrom, start: backfillFrom, syncedUntil: null };
          const lookedBack = new Date(
            Math.max(backfillFrom.getTime(), cursor.syncedUntil.getTime() - SYNC_LOOKBACK_MS),
          );
          return {
            key,
            backfillFrom,
            start: stream.cadence === 'daily' ? floorDay(lookedBack) : lookedBack,
            syncedUntil: cursor.syncedUntil,
          };
        });
        const start = new Date(Math.min(...starts.map((entry) => entry.start.getTime())));
        const memo = new Map<string, unknown>();
        const syncedUntil = starts.some((entry) => !entry.syncedUntil)
          ? null
          : new Date(Math.min(...starts.map((entry) => entry.syncedUntil!.getTime())));
        const wanted = new Set(metrics);
        for (const window of windowsOf(start, now, stream.maxWindowDays)) {
          if (Date.now() > deadline) throw new TimeBoxReachedError();
          if (lease.lost) throw new LeaseLostError();
          // A fetch that throws (a failed page, 429, provider down, token dead) stores and
          // deletes nothing; one that returns but says its answer may be short is not mirrored.
          const answer = { complete: true };
          const context: FetchContext = {
            request,
            now,
            memo,
            syncedUntil,
            markIncomplete: () => void (answer.complete = false),
          };
          const fetched = await stream.fetch(context, window, wanted);
          // Unticking a metric stops its collection at once, even within a running backfill.
          const stillEnabled = new Set(
            (await runs.enabledMetrics(connection.id)).map((metric) => metric.metricKey),
          );
          for (const key of wanted) if (!stillEnabled.has(key)) wanted.delete(key);
          if (wanted.size === 0) break;
          const rows = fetched
            .filter((reading) => wanted.has(reading.metricKey))
            .map((reading) => ({
              ...reading,
              participantId: connection.participantId,
              teamId: connection.teamId,
              brand: source.brand,
              upstream: source.upstream,
            }));
          const mirror =
            stream.mirror && answer.complete && soleOfBrand
              ? {
                  participantId: connection.participantId,
                  teamId: connection.teamId,
                  brand: source.brand,
                  metricKeys: [...wanted],
                  range: stream.mirror(window),
                }
              : undefined;
          const done: (typeof windowsDone)[number] = {
            stream: stream.key,
            from: window.from.toISOString(),
            to: window.to.toISOString(),
            rows: rows.length,
            mirrored: Boolean(mirror),
          };
          windowsDone.push(done);
          const counts = await readings.store(rows, {
            syncRunId: runId,
            ...(mirror && { mirror }),
            // A large window commits batch by batch: the run counts what each one inserted, so
            // a run killed mid-window still accounts for the rows it stored.
            afterBatch: async (tx, counts) => {
              await lease.hold(tx);
              await runs.updateRun(tx, runId, {
                providerCalls: totals.providerCalls,
                rowsInserted: totals.inserted + counts.inserted,
                rowsUpdated: totals.updated + counts.updated,
                windows: windowsDone,
              });
            },
            within: async (tx, counts) => {
              await lease.hold(tx);
              for (const entry of starts.filter((item) => wanted.has(item.key))) {
                await runs.saveCursorIn(tx, {
                  participantDeviceId: connection.id,
                  metricKey: entry.key,
                  teamId: connection.teamId,
                  backfillFrom: entry.backfillFrom,
                  syncedUntil: window.to,
                  lastRunId: runId,
                });
              }
              if (mirror) done.deleted = counts.deleted;
              await runs.updateRun(tx, runId, {
                providerCalls: totals.providerCalls,
                rowsInserted: totals.inserted + counts.inserted,
                rowsUpdated: totals.updated + counts.updated,
                rowsDeleted: totals.deleted + counts.deleted,
                windows: windowsDone,
              });
            },
          });
          totals.inserted += counts.inserted;
          totals.updated += counts.updated;
          totals.deleted += counts.deleted ?? 0;
        }
      }
    } catch (error) {
      if (error instanceof LeaseLostError)
        return leaseLost(connection, runId, plan.slice(unfinishedFrom), totals);
      const handled = await classify(error, connection);
      outcome = handled.outcome;
      errorType = handled.errorType;
      continueAt = handled.continueAt;
      backoffUntil = handled.backoffUntil ?? null;
      backoffReason = handled.backoffReason ?? null;
      forbidden = handled.forbidden ? (previousState?.consecutiveForbidden ?? 0) + 1 : 0;
      if (handled.forbidden && forbidden >= FORBIDDEN_LIMIT) {
        backoffUntil = new Date(clock.now().getTime() + FORBIDDEN_BACKOFF_MS);
        backoffReason = 'forbidden';
      }
      if (handled.log)
        deps.log?.({ err: error, connectionId: connection.id, runId }, 'sync run failed');
    }

    const finishedAt = clock.now();
    try {
      await runs.transaction(async (tx) => {
        await lease.hold(tx);
        await runs.updateRun(tx, runId, {
          providerCalls: totals.providerCalls,
          rowsInserted: totals.inserted,
          rowsUpdated: totals.updated,
          rowsDeleted: totals.deleted,
          windows: windowsDone,
          finishedAt,
          outcome,
          errorType,
        });
        await runs.saveState(tx, {
          participantDeviceId: connection.id,
          teamId: connection.teamId,
          backoffUntil,
          backoffReason,
          consecutiveForbidden: forbidden,
          lastRunAt: finishedAt,
          lastOutcome: outcome,
          lastErrorType: errorType,
          ...((outcome === 'succeeded' || outcome === 'partial') && { lastSuccessAt: finishedAt }),
        });
        // The connection's row belongs to the devices module: it records the end of the run.
        if (outcome === 'succeeded' || outcome === 'partial')
          await connections.recordSync(tx, connection.id, {
            lastSyncAt: finishedAt,
            lastSyncError: null,
          });
        else if (errorType && outcome !== 'needs_reconsent')
          await connections.recordSync(tx, connection.id, {
            lastSyncAt: finishedAt,
            lastSyncError: errorType,
          });
      });
    } catch (error) {
      if (error instanceof LeaseLostError)
        return leaseLost(connection, runId, plan.slice(unfinishedFrom), totals);
      throw error;
    }
    const continueStreams = plan.slice(unfinishedFrom).map(({ stream }) => stream.key);
    return {
      outcome,
      runId,
      ...(continueAt && { continueAt, continueStreams }),
      errorType,
      ...totals,
    };
  }

  /**
   * The run lost its lease (it ran out while the run was stalled, or another run took it):
   * it has stopped writing. Its run row is closed as failed (`lease_lost`) unless the
   * recovery closed it already, and a follow-up is asked for — it waits for whichever run
   * holds the lease now, or takes over at once when none does.
   */
  async function leaseLost(
    connection: SyncConnection,
    runId: number,
    unfinished: ReadonlyArray<{ stream: SyncStream }>,
    totals: { providerCalls: number; inserted: number; updated: number; deleted: number },
  ): Promise<SyncRunResult> {
    const finishedAt = clock.now();
    await runs.closeRunIfRunning(runId, {
      finishedAt,
      outcome: 'failed',
      errorType: SYNC_LEASE_LOST,
    });
    deps.log?.({ connectionId: connection.id, runId }, 'sync run lost its lease and stopped');
    return {
      outcome: 'busy',
      runId,
      continueAt: finishedAt,
      continueStreams: unfinished.map(({ stream }) => stream.key),
      errorType: SYNC_LEASE_LOST,
      ...totals,
    };
  }

  type Classified = {
    outcome: SyncRunOutcome;
    errorType: string | null;
    continueAt?: Date;
    backoffUntil?: Date;
    backoffReason?: string;
    forbidden?: boolean;
    log?: boolean;
  };

  async function classify(error: unknown, connection: SyncConnection): Promise<Classified> {
    const now = clock.now();
    if (error instanceof TimeBoxReachedError)
      return { outcome: 'partial', errorType: null, continueAt: now };
    if (error instanceof CallBudgetExhaustedError) {
      return {
        outcome: 'backed_off',
        errorType: 'rate_limit',
        continueAt: error.retryAt,
        backoffUntil: error.retryAt,
        backoffReason: 'quota',
      };
    }
    if (error instanceof ProviderRateLimitedError) {
      const until = new Date(now.getTime() + Math.max(1, error.retryAfterSeconds) * 1000);
      for (const budget of sources[connection.upstream]?.budgets(connection.id) ?? [])
        await runs.blockBudget(budget.scope, until);
      return {
        outcome: 'backed_off',
        errorType: 'rate_limit',
        continueAt: until,
        backoffUntil: until,
        backoffReason: 'rate_limited',
      };
    }
    // The token could not be refreshed: the devices module marked the connection when the grant is dead.
    if (
      error instanceof AppError &&
      (error.reason === DEVICE_ERROR_REASONS.refreshFailed ||
        error.reason === DEVICE_ERROR_REASONS.notAuthorized)
    ) {
      const current = await runs.connection(connection.id);
      if (current?.needsReconsent) return { outcome: 'needs_reconsent', errorType: 'auth_error' };
      return {
        outcome: 'failed',
        errorType: 'auth_error',
        backoffUntil: new Date(now.getTime() + FAILURE_BACKOFF_MS),
        backoffReason: 'auth_error',
      };
    }
    if (error instanceof ProviderGoneError) {
      await connections.markGone(connection.id, { userId: null }, { requestId: 'sync' });
      return { outcome: 'needs_reconsent', errorType: 'auth_error' };
    }
    if (error instanceof ProviderPermissionError) {
      return {
        outcome: 'failed',
        errorType: 'auth_error',
        forbidden: true,
        backoffUntil: new Date(now.getTime() + FAILURE_BACKOFF_MS),
        backoffReason: 'forbidden',
      };
    }
    if (error instanceof ProviderError) {
      return {
        outcome: 'failed',
        errorType: errorTypeOf(error),
        backoffUntil: new Date(now.getTime() + FAILURE_BACKOFF_MS),
        backoffReason: errorTypeOf(error),
        log: true,
      };
    }
    // The database went away mid-run (a restart, a failover, a dropped connection) and is back
    // by the time the run is recorded: the unfinished streams go on shortly, not at the next
    // scheduler tick up to 15 minutes later (what is stored is kept, the cursors say where).
    if (isDatabaseUnavailable(error))
      return {
        outcome: 'failed',
        errorType: 'processing_error',
        continueAt: new Date(now.getTime() + DATABASE_RETRY_MS),
        log: true,
      };
    return { outcome: 'failed', errorType: 'processing_error', log: true };
  }

  /**
   * One provider call: a usable token (the devices module's single-flight refresh, retried
   * once after a refresh), one unit of every call budget first, no retries of its own.
   */
  async function providerCall(
    connection: SyncConnection,
    http: ProviderHttp,
    budgets: readonly CallBudget[],
    req: SourceRequest,
    totals: { providerCalls: number },
  ): Promise<unknown> {
    return connections.withConnectionAccessToken(
      connection.id,
      { userId: null },
      { requestId: 'sync' },
      async (_client, accessToken) => {
        for (const budget of budgets) {
          const retryAt = await runs.takeCall(budget, clock.now());
          if (retryAt) throw new CallBudgetExhaustedError(retryAt);
        }
        totals.providerCalls += 1;
        const url = new URL(`${http.config.apiBaseUrl}${req.path}`);
        for (const [key, value] of Object.entries(req.query ?? {}))
          if (value !== undefined) url.searchParams.set(key, value);
        const headers: Record<string, string> = {
          authorization: `Bearer ${accessToken}`,
          accept: 'application/json',
        };
        let body: string | URLSearchParams | undefined;
        if (req.form) {
          body = new URLSearchParams();
          for (const [key, value] of Object.entries(req.form))
            if (value !== undefined) body.set(key, value);
          headers['content-type'] = 'application/x-www-form-urlencoded';
        } else if (req.json !== undefined) {
          body = JSON.stringify(req.json);
          headers['content-type'] = 'application/json';
        }
        const response = await http.fetchOnce(url.href, {
          method: req.method,
          headers,
          ...(body !== undefined && { body }),
        });
        const text = await response.text();
        if (!response.ok)
          throw providerErrorFromResponse(http.config, 'api', response, text, clock.now());
        try {
          return text === '' ? {} : JSON.parse(text);
        } catch (cause) {
          throw new AppError(502, 'The provider sent an answer that is not JSON.', { cause });
        }
      },
    );
  }

  return { syncConnection, backfillStart };
}

export type SyncService = ReturnType<typeof createSyncService>;

function floorDay(instant: Date): Date {
  return new Date(Math.floor(instant.getTime() / DAY_MS) * DAY_MS);
}

function isDue(
  stream: SyncStream,
  metrics: readonly string[],
  cursors: Map<string, CursorRow>,
  now: Date,
): boolean {
  return metrics.some((key) => {
    const until = cursors.get(key)?.syncedUntil;
    return (
      !until || now.getTime() - until.getTime() >= SYNC_CADENCE_MS[stream.cadence] - DUE_GRACE_MS
    );
  });
}
