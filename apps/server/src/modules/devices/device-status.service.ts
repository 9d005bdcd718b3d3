import pLimit from 'p-limit';
import {
  DEVICE_STATUS_BATCH,
  LIMITS,
  type AuthorisedDeviceEntry,
  type BrandDeviceStatusAnswer,
  type DeviceBrandName,
  type DeviceStatusResponse,
} from '@trialpulse/shared';
import type { Clock } from '../../lib/clock';
import type { Meta } from '../../lib/request-meta';
import { connectionStatusOf, type DeviceConnectionsService } from './device-connections.service';
import type { ConnectionRow, DevicesRepository } from './devices.repository';

type Actor = { userId: number | null };

/** Provider calls one batched status call makes at once, whatever the page size. */
export const STATUS_PROVIDER_CONCURRENCY = 4;
/** A stored device list younger than one status cycle answers without calling the provider. */
export const STATUS_MAX_AGE_MS = LIMITS.deviceStatusRefreshMs;

type Stored = { devices: AuthorisedDeviceEntry[]; checkedAt: Date } | null;

/**
 * The batched device status of a table page (decision 0041): for each visible participant
 * and each brand the team allows, the authorisation check and (Fitbit) the device list.
 * The device list comes from the stored status (`participant_device_status`); only a
 * missing or stale one is read from the provider, at most `STATUS_PROVIDER_CONCURRENCY`
 * at a time, once per connection however many tabs ask at the same moment.
 */
export function createDeviceStatusService(deps: {
  repository: DevicesRepository;
  connections: DeviceConnectionsService;
  clock: Clock;
}) {
  const { repository, connections, clock } = deps;
  const limit = pLimit(STATUS_PROVIDER_CONCURRENCY);
  const reading = new Map<number, Promise<Stored>>();

  /** Reads one connection's devices from the provider and stores them (single-flight). */
  function readFromProvider(row: ConnectionRow, actor: Actor, meta: Meta): Promise<Stored> {
    const running = reading.get(row.id);
    if (running) return running;
    const read = limit(async () => {
      // devicesOfConnection stores what it read as the connection's status.
      const devices = await connections.devicesOfConnection(row, actor, meta);
      return { devices, checkedAt: clock.now() };
    }).finally(() => reading.delete(row.id));
    reading.set(row.id, read);
    return read;
  }

  const isFresh = (stored: Stored) =>
    stored !== null && clock.now().getTime() - stored.checkedAt.getTime() < STATUS_MAX_AGE_MS;

  return {
    /**
     * Status of `participantIds` (already checked visible, in the caller's team `teamId`),
     * in the order given, for the brands the team allows.
     */
    async statusOf(
      teamId: number,
      participantIds: readonly number[],
      actor: Actor,
      meta: Meta,
    ): Promise<DeviceStatusResponse> {
      const [allowed, rows] = await Promise.all([
        repository.allowedBrands(teamId),
        repository.connectionsWithStatus(teamId, participantIds),
      ]);
      const brands = DEVICE_STATUS_BATCH.checkOrder.filter((brand) => allowed.includes(brand));

      // The most recent connection per participant and brand, as the single calls pick it.
      const latest = new Map<string, (typeof rows)[number]>();
      for (const row of rows) {
        const key = `${row.connection.participantId}:${row.connection.brand}`;
        const seen = latest.get(key);
        if (!seen || seen.connection.updatedAt < row.connection.updatedAt) latest.set(key, row);
      }

      const answerFor = async (
        participantId: number,
        brand: DeviceBrandName,
      ): Promise<BrandDeviceStatusAnswer> => {
        const found = latest.get(`${participantId}:${brand}`);
        const status = connectionStatusOf(found?.connection);
        const auth = {
          message: status === 'authorized' ? ('found' as const) : ('not found' as const),
          status,
          upstream: found?.connection.upstream ?? null,
        };
        const listed = (
          DEVICE_STATUS_BATCH.deviceListBrands as readonly DeviceBrandName[]
        ).includes(brand);
        if (!found || status !== 'authorized' || !listed)
          return { brand, auth, devices: [], checkedAt: null };
        const stored = isFresh(found.stored)
          ? found.stored!
          : await readFromProvider(found.connection, actor, meta);
        return {
          brand,
          auth,
          devices: stored!.devices,
          checkedAt: stored!.checkedAt.toISOString(),
        };
      };

      const statuses = await Promise.all(
        participantIds.map(async (participantId) => ({
          participantId,
          brands: await Promise.all(brands.map((brand) => answerFor(participantId, brand))),
        })),
      );
      return { statuses };
    },
  };
}

export type DeviceStatusService = ReturnType<typeof createDeviceStatusService>;
