import {
  DEVICE_ERROR_REASONS,
  DEVICE_MESSAGES,
  type AuthorisedDeviceEntry,
  type ConnectionStatus,
  type DeviceBrandName,
  type DeviceConnection,
  type IsAuthResponse,
} from '@trialpulse/shared';
import { recordAudit } from '../../lib/audit';
import type { Clock } from '../../lib/clock';
import type { Meta } from '../../lib/request-meta';
import { decryptSecret, encryptSecret } from '../../lib/crypto';
import { AppError } from '../../lib/errors';
import { isDatabaseUnavailable } from '../../lib/db-errors';
import type { ProviderDevice, TokenSet } from './core/provider-client';
import {
  ProviderAuthError,
  ProviderGoneError,
  ProviderInvalidGrantError,
  ProviderNotFoundError,
  errorTypeOf,
} from './core/provider-errors';
import type { ProviderRegistry, UpstreamClient } from './core/provider-registry';
import type { DbOrTx } from '../../db/client';
import type { ConnectionRow, DevicesRepository } from './devices.repository';

type Actor = { userId: number | null };

/** An access token this close to its expiry is refreshed before use. */
const EXPIRY_MARGIN_MS = 60_000;
/**
 * How long tokens a provider issued while the database was away are held for storing. A
 * rotated refresh token is single-use: once it is lost, the participant must consent again.
 */
export const TOKEN_STORE_PATIENCE_MS = 5 * 60_000;

const notAuthorized = () =>
  new AppError(409, DEVICE_MESSAGES.notAuthorized, {
    displayToUser: true,
    reason: DEVICE_ERROR_REASONS.notAuthorized,
  });
/** Not authorised because the connection needs re-consent: says so, and what to do. */
const needsReconsent = () =>
  new AppError(409, DEVICE_MESSAGES.needsReconsentData, {
    displayToUser: true,
    reason: DEVICE_ERROR_REASONS.notAuthorized,
  });
const refreshFailed = (cause?: unknown) =>
  new AppError(502, DEVICE_MESSAGES.refreshFailed, {
    displayToUser: true,
    reason: DEVICE_ERROR_REASONS.refreshFailed,
    cause,
  });
const revokeFailed = (cause?: unknown) =>
  new AppError(502, DEVICE_MESSAGES.revokeFailed, {
    displayToUser: true,
    reason: DEVICE_ERROR_REASONS.revokeFailed,
    cause,
  });
export const providerNotConfigured = () =>
  new AppError(503, DEVICE_MESSAGES.providerNotConfigured, {
    displayToUser: true,
    reason: DEVICE_ERROR_REASONS.providerNotConfigured,
  });

/** What staff see of a connection: never a token. */
export function connectionStatusOf(row: ConnectionRow | undefined): ConnectionStatus {
  if (!row) return 'not_authorized';
  if (row.needsReconsent) return 'needs_reconsent';
  if (row.authorizationStatus === 'authorized' && row.refreshTokenEncrypted) return 'authorized';
  if (row.authorizationStatus === 'revoked') return 'revoked';
  return 'not_authorized';
}

export function presentConnection(
  row: ConnectionRow | undefined,
  context: {
    participantId: number;
    participantCode: string;
    trialId: number;
    trialNumber: string;
    brand: DeviceBrandName;
  },
): DeviceConnection {
  return {
    participantId: context.participantId,
    participantCode: context.participantCode,
    trialId: context.trialId,
    trialNumber: context.trialNumber,
    brand: context.brand,
    upstream: row?.upstream ?? null,
    status: connectionStatusOf(row),
    authorizationDate: row?.authorizationDate?.toISOString() ?? null,
    tokenExpiresAt: row?.accessTokenEncrypted ? (row.tokenExpiresAt?.toISOString() ?? null) : null,
    lastRefreshedAt: row?.lastRefreshedAt?.toISOString() ?? null,
    scopes: row?.scopes ?? [],
  };
}

/**
 * The token lifecycle of stored connections: use (refreshing when expired), refresh,
 * revoke, and the status and device list staff see. Refresh is single-flight per
 * connection: in this process one promise is shared, across processes the row lock
 * decides, and whoever waited finds the refresh already done (`last_refreshed_at`).
 * `invalid_grant` marks the connection as needing re-consent and drops only the dead
 * tokens; device data is never touched here.
 */
export function createDeviceConnectionsService(deps: {
  repository: DevicesRepository;
  providers: ProviderRegistry;
  clock: Clock;
  encryptionKey: string;
}) {
  const { repository, providers, clock, encryptionKey } = deps;
  const inFlight = new Map<number, Promise<ConnectionRow>>();

  const clientOf = (row: ConnectionRow): UpstreamClient => {
    const client = providers.client(row.upstream);
    if (!client) throw providerNotConfigured();
    return client;
  };

  /** Refreshes once however many callers ask at the same time; resolves to the updated row. */
  function refreshConnection(
    connectionId: number,
    actor: Actor,
    meta: Meta,
    startedAt: Date = clock.now(),
  ): Promise<ConnectionRow> {
    const running = inFlight.get(connectionId);
    if (running) return running;
    const refresh = runRefresh(connectionId, startedAt, actor, meta).finally(() =>
      inFlight.delete(connectionId),
    );
    inFlight.set(connectionId, refresh);
    return refresh;
  }

  async function runRefresh(
    connectionId: number,
    startedAt: Date,
    actor: Actor,
    meta: Meta,
  ): Promise<ConnectionRow> {
    // What the provider answered, kept outside the transaction: a refresh token it rotated
    // (Dexcom, Omron) lives only here until it is stored, and the one it replaced is spent.
    let refreshed: { row: ConnectionRow; spent: string; tokens: TokenSet } | undefined;
    let outcome: { row: ConnectionRow } | { error: AppError };
    try {
      // The provider call runs under the row lock, so a second process waits for it and then
      // sees the refresh done instead of spending the (single-use) refresh token again.
      outcome = await repository.transaction(async (tx) => {
        const row = await repository.lockConnection(tx, connectionId);
        if (!row || !row.refreshTokenEncrypted || row.needsReconsent)
          return { error: notAuthorized() };
        if (row.lastRefreshedAt && row.lastRefreshedAt >= startedAt) return { row };
        const client = providers.client(row.upstream);
        if (!client) return { error: providerNotConfigured() };
        const spent = decryptSecret(row.refreshTokenEncrypted, encryptionKey);
        let tokens: TokenSet;
        try {
          tokens = await client.refresh(spent);
        } catch (error) {
          if (error instanceof ProviderInvalidGrantError || error instanceof ProviderGoneError) {
            await markNeedsReconsent(tx, row, actor, meta, errorTypeOf(error));
            return { error: refreshFailed(error) };
          }
          await recordAudit(tx, {
            action: 'device.token.refresh_failed',
            entityType: 'participant_device',
            entityId: row.id,
            actorUserId: actor.userId,
            teamId: row.teamId,
            requestId: meta.requestId,
            after: {
              participantId: row.participantId,
              upstream: row.upstream,
              errorType: errorTypeOf(error),
            },
          });
          return { error: refreshFailed(error) };
        }
        refreshed = { row, spent, tokens };
        return { row: await storeTokens(tx, row, tokens, actor, meta) };
      });
    } catch (error) {
      // The database went away after the provider answered: the new tokens are stored as soon
      // as it is back, or the connection would need re-consent for a token it holds.
      if (refreshed && isDatabaseUnavailable(error))
        return keepRefreshedTokens(refreshed, actor, meta);
      throw error;
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.row;
  }

  /** The new tokens replace the old ones in one row write, with the audit entry. */
  async function storeTokens(
    tx: DbOrTx,
    row: ConnectionRow,
    tokens: TokenSet,
    actor: Actor,
    meta: Meta,
  ): Promise<ConnectionRow> {
    const now = clock.now();
    const values = {
      accessTokenEncrypted: encryptSecret(tokens.accessToken, encryptionKey),
      refreshTokenEncrypted: encryptSecret(tokens.refreshToken, encryptionKey),
      tokenExpiresAt: tokens.expiresAt,
      scopes: tokens.scopes.length > 0 ? tokens.scopes : row.scopes,
      lastRefreshedAt: now,
      updatedAt: now,
    };
    await repository.updateConnection(tx, row.id, values);
    await recordAudit(tx, {
      action: 'device.token.refresh',
      entityType: 'participant_device',
      entityId: row.id,
      actorUserId: actor.userId,
      teamId: row.teamId,
      requestId: meta.requestId,
      after: {
        participantId: row.participantId,
        upstream: row.upstream,
        expiresAt: tokens.expiresAt.toISOString(),
      },
    });
    return { ...row, ...values };
  }

  /**
   * Stores tokens the provider issued while the database was away, trying again (real time,
   * doubling to 5 s) for up to TOKEN_STORE_PATIENCE_MS. Callers of this process wait on the
   * same single-flight promise meanwhile. They are written only over the refresh token they
   * replace: a revoke, a re-consent or another process's refresh in between wins.
   */
  async function keepRefreshedTokens(
    refreshed: { row: ConnectionRow; spent: string; tokens: TokenSet },
    actor: Actor,
    meta: Meta,
  ): Promise<ConnectionRow> {
    const deadline = Date.now() + TOKEN_STORE_PATIENCE_MS;
    for (let delay = 250; ; delay = Math.min(delay * 2, 5_000)) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      try {
        const outcome = await repository.transaction(async (tx) => {
          const row = await repository.lockConnection(tx, refreshed.row.id);
          if (!row?.refreshTokenEncrypted || row.needsReconsent) return { error: notAuthorized() };
          if (decryptSecret(row.refreshTokenEncrypted, encryptionKey) !== refreshed.spent)
            return { row };
          return { row: await storeTokens(tx, row, refreshed.tokens, actor, meta) };
        });
        if ('error' in outcome) throw outcome.error;
        return outcome.row;
      } catch (error) {
        if (!isDatabaseUnavailable(error) || Date.now() >= deadline) throw error;
      }
    }
  }

  async function markNeedsReconsent(
    tx: Parameters<Parameters<DevicesRepository['transaction']>[0]>[0],
    row: ConnectionRow,
    actor: Actor,
    meta: Meta,
    errorType: string,
  ) {
    await repository.updateConnection(tx, row.id, {
      needsReconsent: true,
      authorizationStatus: 'error',
      accessTokenEncrypted: null,
      refreshTokenEncrypted: null,
      tokenExpiresAt: null,
      lastSyncError: errorType,
      updatedAt: clock.now(),
    });
    await recordAudit(tx, {
      action: 'device.connection.needs_reconsent',
      entityType: 'participant_device',
      entityId: row.id,
      actorUserId: actor.userId,
      teamId: row.teamId,
      requestId: meta.requestId,
      after: { participantId: row.participantId, upstream: row.upstream, errorType },
    });
  }

  /**
   * Runs a provider call with a usable access token: refreshed first when it is about to
   * expire, and refreshed and retried once when the provider says it has expired.
   */
  async function withAccessToken<T>(
    row: ConnectionRow,
    actor: Actor,
    meta: Meta,
    call: (client: UpstreamClient, accessToken: string) => Promise<T>,
  ): Promise<T> {
    if (connectionStatusOf(row) === 'needs_reconsent') throw needsReconsent();
    if (connectionStatusOf(row) !== 'authorized' || !row.accessTokenEncrypted)
      throw notAuthorized();
    const client = clientOf(row);
    let current = row;
    if (
      !current.tokenExpiresAt ||
      current.tokenExpiresAt.getTime() - clock.now().getTime() < EXPIRY_MARGIN_MS
    ) {
      current = await refreshConnection(row.id, actor, meta);
    }
    try {
      return await call(client, decryptSecret(current.accessTokenEncrypted!, encryptionKey));
    } catch (error) {
      if (!(error instanceof ProviderAuthError)) throw error;
      current = await refreshConnection(row.id, actor, meta);
      return call(client, decryptSecret(current.accessTokenEncrypted!, encryptionKey));
    }
  }

  /**
   * An authorised connection's devices as the spec's authorised device entries, stored as
   * the connection's device status (`participant_device_status`: the batched status call
   * and the completeness grid read it; decisions 0041, 0050, 0027). A provider failure
   * becomes one entry with its error type (the status cycle goes on).
   */
  async function devicesOfConnection(
    row: ConnectionRow,
    actor: Actor,
    meta: Meta,
  ): Promise<AuthorisedDeviceEntry[]> {
    const entries = await readDevices(row, actor, meta);
    await repository.saveDeviceStatus(row, entries, clock.now());
    return entries;
  }

  async function readDevices(
    row: ConnectionRow,
    actor: Actor,
    meta: Meta,
  ): Promise<AuthorisedDeviceEntry[]> {
    const brand = row.brand;
    try {
      const devices = await withAccessToken(row, actor, meta, (client, token) =>
        client.listDevices(token),
      );
      return deviceEntriesOf(brand, devices);
    } catch (error) {
      const cause = error instanceof AppError ? (error.cause ?? error) : error;
      // An API that is gone for good (the retired legacy Fitbit Web API) needs re-consent.
      if (cause instanceof ProviderGoneError && !(error instanceof AppError)) {
        await repository.transaction((tx) =>
          markNeedsReconsent(tx, row, actor, meta, 'auth_error'),
        );
      }
      const errorType =
        error instanceof AppError && error.reason === DEVICE_ERROR_REASONS.notAuthorized
          ? 'auth_error'
          : errorTypeOf(cause);
      return [errorEntry(brand, errorType)];
    }
  }

  return {
    withAccessToken,

    /**
     * Runs a provider call on the participant's connection of a brand (the data calls);
     * no connection → the not-authorised error. Callers check access first.
     */
    async withConnection<T>(
      teamId: number,
      participantId: number,
      brand: DeviceBrandName,
      actor: Actor,
      meta: Meta,
      call: (client: UpstreamClient, accessToken: string) => Promise<T>,
    ): Promise<T> {
      const row = await repository.findConnection(repository.db, teamId, participantId, brand);
      if (!row) throw notAuthorized();
      return withAccessToken(row, actor, meta, call);
    },

    /**
     * `withAccessToken` for a connection by id, read afresh (device-data sync: a refresh by
     * another call or process is seen). Throws the not-authorised error when it is gone.
     */
    async withConnectionAccessToken<T>(
      connectionId: number,
      actor: Actor,
      meta: Meta,
      call: (client: UpstreamClient, accessToken: string) => Promise<T>,
    ): Promise<T> {
      const row = await repository.connectionById(connectionId);
      if (!row) throw notAuthorized();
      return withAccessToken(row, actor, meta, call);
    },

    /**
     * Records a sync run's end on the connection (`last_sync_at`, `last_sync_error`: what the
     * device lists show) inside the sync's transaction, so it lands with the run's outcome.
     */
    recordSync(
      tx: DbOrTx,
      connectionId: number,
      values: { lastSyncAt: Date; lastSyncError: string | null },
    ): Promise<void> {
      return repository.recordSync(tx, connectionId, values);
    },

    /** Marks a connection whose API is gone (410) as needing re-consent; readings are kept. */
    async markGone(connectionId: number, actor: Actor, meta: Meta): Promise<void> {
      const row = await repository.connectionById(connectionId);
      if (!row || row.needsReconsent) return;
      await repository.transaction((tx) => markNeedsReconsent(tx, row, actor, meta, 'auth_error'));
    },

    /**
     * Refreshes a connection on request. `requestedAt` is when the caller asked: a refresh
     * that finished after it (by a concurrent caller) answers this request too.
     */
    async refresh(
      teamId: number,
      participantId: number,
      brand: DeviceBrandName,
      actor: Actor,
      meta: Meta,
      requestedAt: Date = clock.now(),
    ) {
      const row = await repository.findConnection(repository.db, teamId, participantId, brand);
      if (!row || connectionStatusOf(row) !== 'authorized') throw notAuthorized();
      await refreshConnection(row.id, actor, meta, requestedAt);
      return { code: 200, message: DEVICE_MESSAGES.refreshed };
    },

    /**
     * Revokes the grant at the provider (where it has a revoke endpoint) and deletes the
     * tokens. A provider that no longer knows the grant, or an API that is gone, counts as
     * revoked; any other failure keeps the tokens so the revoke can be tried again.
     */
    async revoke(
      teamId: number,
      participantId: number,
      brand: DeviceBrandName,
      actor: Actor,
      meta: Meta,
    ) {
      const row = await repository.findConnection(repository.db, teamId, participantId, brand);
      if (!row || (!row.refreshTokenEncrypted && !row.accessTokenEncrypted)) {
        if (row && row.authorizationStatus !== 'revoked') {
          await repository.transaction(async (tx) => {
            await repository.updateConnection(tx, row.id, {
              authorizationStatus: 'revoked',
              needsReconsent: false,
              updatedAt: clock.now(),
            });
            await auditRevoke(tx, row, actor, meta, 'no_tokens');
          });
          return { code: 200, message: DEVICE_MESSAGES.revoked };
        }
        throw notAuthorized();
      }
      const outcome = await repository.transaction(async (tx) => {
        const locked = await repository.lockConnection(tx, row.id);
        if (!locked) return { error: notAuthorized() };
        const token = locked.refreshTokenEncrypted ?? locked.accessTokenEncrypted;
        let providerResult = 'no_revoke_endpoint';
        const client = providers.client(locked.upstream);
        if (token && client?.revoke) {
          try {
            await client.revoke(decryptSecret(token, encryptionKey));
            providerResult = 'revoked';
          } catch (error) {
            if (error instanceof ProviderGoneError || error instanceof ProviderNotFoundError) {
              providerResult = 'gone';
            } else {
              await recordAudit(tx, {
                action: 'device.token.revoke_failed',
                entityType: 'participant_device',
                entityId: locked.id,
                actorUserId: actor.userId,
                teamId: locked.teamId,
                requestId: meta.requestId,
                after: {
                  participantId: locked.participantId,
                  upstream: locked.upstream,
                  errorType: errorTypeOf(error),
                },
              });
              return { error: revokeFailed(error) };
            }
          }
        }
        await repository.updateConnection(tx, locked.id, {
          accessTokenEncrypted: null,
          refreshTokenEncrypted: null,
          tokenExpiresAt: null,
          authorizationStatus: 'revoked',
          needsReconsent: false,
          updatedAt: clock.now(),
        });
        await auditRevoke(tx, locked, actor, meta, providerResult);
        return { ok: true as const };
      });
      if ('error' in outcome) throw outcome.error;
      return { code: 200, message: DEVICE_MESSAGES.revoked };
    },

    /** Revokes every connection of a participant that is about to be deleted; failures are logged, not fatal. */
    async revokeAllOfParticipant(teamId: number, participantId: number, actor: Actor, meta: Meta) {
      const rows = await repository.connectionsOfParticipant(teamId, participantId);
      const failures: string[] = [];
      for (const row of rows) {
        if (!row.refreshTokenEncrypted && !row.accessTokenEncrypted) continue;
        try {
          await this.revoke(teamId, participantId, row.brand, actor, meta);
        } catch (error) {
          failures.push(row.brand);
          void error;
        }
      }
      return { failures };
    },

    async isAuth(
      teamId: number,
      participantId: number,
      brand: DeviceBrandName,
    ): Promise<IsAuthResponse> {
      const row = await repository.findConnection(repository.db, teamId, participantId, brand);
      const status = connectionStatusOf(row);
      return {
        message: status === 'authorized' ? 'found' : 'not found',
        status,
        upstream: row?.upstream ?? null,
      };
    },

    /**
     * The participant's devices of a brand as the spec's authorised device entries. A
     * provider failure becomes one entry with its error type (the status cycle goes on).
     */
    async devices(
      teamId: number,
      participantId: number,
      brand: DeviceBrandName,
      actor: Actor,
      meta: Meta,
    ): Promise<AuthorisedDeviceEntry[]> {
      const row = await repository.findConnection(repository.db, teamId, participantId, brand);
      if (!row || connectionStatusOf(row) !== 'authorized') return [];
      // Stored too: what the provider just said also answers the batched status call.
      return devicesOfConnection(row, actor, meta);
    },

    devicesOfConnection,

    /** Sync health of these participants' connections (see `createConnectionHealth`). */
    healthOfParticipants: createConnectionHealth({ repository }).healthOfParticipants,

    async connectionsOfTeam(teamId: number, brand: DeviceBrandName): Promise<DeviceConnection[]> {
      const rows = await repository.connectionsOfTeam(teamId, brand);
      return rows.map((row) =>
        presentConnection(row, {
          participantId: row.participantId,
          participantCode: row.participantCode,
          trialId: row.trialId,
          trialNumber: row.trialNumber,
          brand,
        }),
      );
    },
  };

  async function auditRevoke(
    tx: Parameters<Parameters<DevicesRepository['transaction']>[0]>[0],
    row: ConnectionRow,
    actor: Actor,
    meta: Meta,
    providerResult: string,
  ) {
    await recordAudit(tx, {
      action: 'device.token.revoke',
      entityType: 'participant_device',
      entityId: row.id,
      actorUserId: actor.userId,
      teamId: row.teamId,
      requestId: meta.requestId,
      after: { participantId: row.participantId, upstream: row.upstream, provider: providerResult },
    });
  }
}

export type DeviceConnectionsService = ReturnType<typeof createDeviceConnectionsService>;

/** One connection's sync health (see `createConnectionHealth`). */
export type ConnectionHealthRow = {
  participantId: number;
  brand: DeviceBrandName;
  status: ConnectionStatus;
  needsReconsent: boolean;
  battery: string | null;
  batteryLevel: number | null;
  lastSyncAt: Date | null;
  connectedAt: Date;
};

/**
 * Sync health of participants' stored connections (completeness grid, alert digest):
 * status, re-consent, the battery the provider last reported and the latest of the
 * device's own upload and our last sync. Reads the database only (no provider call), so
 * the digest job builds it without provider settings. Callers check access first.
 */
export function createConnectionHealth(deps: {
  repository: Pick<DevicesRepository, 'connectionsOfParticipants'>;
}) {
  return {
    async healthOfParticipants(
      teamId: number,
      participantIds: readonly number[],
    ): Promise<ConnectionHealthRow[]> {
      const rows = await deps.repository.connectionsOfParticipants(teamId, participantIds);
      return rows.map(({ connection: row, statusDevices }) => {
        const report = deviceReportOf(statusDevices ?? []);
        return {
          participantId: row.participantId,
          brand: row.brand,
          status: connectionStatusOf(row),
          needsReconsent: row.needsReconsent,
          battery: report.battery,
          batteryLevel: report.batteryLevel,
          lastSyncAt: latestOf(report.lastSyncAt, row.lastSyncAt),
          connectedAt: row.authorizationDate ?? row.createdAt,
        };
      });
    },
  };
}

const latestOf = (a: Date | null, b: Date | null) => (a && b ? (a > b ? a : b) : (a ?? b));

/**
 * What the completeness grid takes from a stored device list: the battery of the first
 * device that reports one (the tracker; scales and CGMs report none) and the most recent
 * upload of any device. An error entry reports neither.
 */
function deviceReportOf(devices: readonly AuthorisedDeviceEntry[]): {
  battery: string | null;
  batteryLevel: number | null;
  lastSyncAt: Date | null;
} {
  const withBattery = devices.find(
    (device) => device.battery !== null || device.batteryLevel !== null,
  );
  const uploads = devices
    .map((device) => (device.lastSyncTime ? Date.parse(device.lastSyncTime) : Number.NaN))
    .filter((time) => Number.isFinite(time));
  return {
    battery: withBattery?.battery ?? null,
    batteryLevel: withBattery?.batteryLevel ?? null,
    lastSyncAt: uploads.length > 0 ? new Date(Math.max(...uploads)) : null,
  };
}

/** A provider's device list as the spec's authorised device entries. */
export function deviceEntriesOf(
  brand: DeviceBrandName,
  devices: readonly ProviderDevice[],
): AuthorisedDeviceEntry[] {
  return devices.map((device) => presentDevice(brand, device));
}

function presentDevice(brand: DeviceBrandName, device: ProviderDevice): AuthorisedDeviceEntry {
  return {
    device: brand,
    deviceVersion: device.deviceVersion,
    deviceType: device.type,
    batteryLevel: device.batteryLevel,
    battery: device.battery,
    lastSyncTime: device.lastSyncTime,
    hasError: false,
    errorType: null,
  };
}

function errorEntry(
  brand: DeviceBrandName,
  errorType: AuthorisedDeviceEntry['errorType'],
): AuthorisedDeviceEntry {
  return {
    device: brand,
    deviceVersion: null,
    deviceType: null,
    batteryLevel: null,
    battery: null,
    lastSyncTime: null,
    hasError: true,
    errorType,
  };
}
