import { useEffect, useMemo, useState } from 'react';
import { ZodError } from 'zod';
import {
  DEVICE_STATUS_BATCH,
  LIMITS,
  type AuthorisedDeviceEntry,
  type DeviceBrandName,
  type DeviceErrorType,
  type DeviceStatusResponse,
  type IsAuthResponse,
} from '@trialpulse/shared';
import { isApiError } from '@/lib/api-client';
import { getDeviceStatus } from '../api/get-device-status';

/** One brand of one participant, as the last cycle found it. */
export type BrandDeviceStatus = {
  brand: DeviceBrandName;
  /** The authorisation check's answer; `null` when the check itself failed. */
  auth: IsAuthResponse | null;
  /** Authorised devices and error entries (`hasError`): the spec's `auth_devices`. */
  devices: AuthorisedDeviceEntry[];
};

export type ParticipantDeviceStatus = { brands: BrandDeviceStatus[] };

export type DeviceStatusCycle = {
  /** By participant id; a participant not checked yet is missing. */
  statuses: Readonly<Record<number, ParticipantDeviceStatus>>;
  /** Some check failed (an error entry exists): the spec's banner. */
  someFailed: boolean;
};

type CycleOptions = {
  /** The brands the team allows; only these are checked. */
  brands: readonly DeviceBrandName[];
  /** False stops the cycle (a Viewer, or the brands not loaded yet). */
  enabled?: boolean;
};

/**
 * The device status refresh of access spec §4 for the rows a table shows (its visible
 * page): one batched call per cycle (`GET /api/deviceStatus`, decision 0041) answers, for
 * every participant of the page, the Fitbit authorisation check ('found' means authorised)
 * with the Fitbit devices, then Omron, then Dexcom — only brands the team allows. A cycle
 * starts every 300000 ms (`LIMITS.deviceStatusRefreshMs`); a new page (other ids) or other
 * brands start one at once. A failed call becomes error entries and the cycle goes on;
 * unmounting stops it (the call in flight is aborted). The server answers from the device
 * lists it keeps, so the 100 ms gap between participants of the per-participant calls is
 * not needed.
 */
export function useDeviceStatusCycle(
  participants: readonly { id: number }[],
  { brands, enabled = true }: CycleOptions,
): DeviceStatusCycle {
  const [statuses, setStatuses] = useState<Record<number, ParticipantDeviceStatus>>({});
  const idsKey = participants.map((participant) => participant.id).join(',');
  const brandsKey = DEVICE_STATUS_BATCH.checkOrder
    .filter((brand) => brands.includes(brand))
    .join(',');

  useEffect(() => {
    const ids = idsKey ? idsKey.split(',').map(Number) : [];
    const checked = brandsKey ? (brandsKey.split(',') as DeviceBrandName[]) : [];
    if (!enabled || ids.length === 0 || checked.length === 0) return;

    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      });

    const run = async () => {
      while (!controller.signal.aborted) {
        const started = Date.now();
        // A page has at most 50 rows: one call. A longer list (never a table page) is split.
        for (let at = 0; at < ids.length; at += DEVICE_STATUS_BATCH.maxParticipants) {
          const batch = ids.slice(at, at + DEVICE_STATUS_BATCH.maxParticipants);
          const found = await checkParticipants(batch, checked, controller.signal);
          if (controller.signal.aborted) return;
          setStatuses((current) => ({ ...current, ...found }));
        }
        await pause(Math.max(0, LIMITS.deviceStatusRefreshMs - (Date.now() - started)));
      }
    };
    run().catch(() => {
      // Only an abort (unmount) ends the loop early; every other failure is an entry.
    });

    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [enabled, idsKey, brandsKey]);

  return useMemo(() => {
    const someFailed = participants.some((participant) =>
      statuses[participant.id]?.brands.some((brand) => brand.devices.some((d) => d.hasError)),
    );
    return { statuses, someFailed };
  }, [participants, statuses]);
}

/** A device entry standing for a failed check (spec `hasError` / `errorType`). */
export function deviceErrorEntry(
  brand: DeviceBrandName,
  errorType: DeviceErrorType,
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

/** One batched call for `ids`; a failed call is an error entry for each brand of each. */
async function checkParticipants(
  ids: readonly number[],
  brands: readonly DeviceBrandName[],
  signal: AbortSignal,
): Promise<Record<number, ParticipantDeviceStatus>> {
  let answer: DeviceStatusResponse;
  try {
    answer = await getDeviceStatus(ids, signal);
  } catch (error) {
    rethrowAbort(error);
    const errorType = statusCallErrorType(error);
    const failed: ParticipantDeviceStatus = {
      brands: brands.map((brand) => ({
        brand,
        auth: null,
        devices: [deviceErrorEntry(brand, errorType)],
      })),
    };
    return Object.fromEntries(ids.map((id) => [id, failed]));
  }
  // Participants the server left out (deleted, or no longer visible) get no status.
  return Object.fromEntries(
    answer.statuses.map((status) => [
      status.participantId,
      {
        brands: status.brands
          .filter((brand) => brands.includes(brand.brand))
          .map(({ brand, auth, devices }) => ({ brand, auth, devices })),
      },
    ]),
  );
}

/** A failed status call: wrong shape, our rate limit, or the check did not get through. */
function statusCallErrorType(error: unknown): DeviceErrorType {
  if (isBadShape(error)) return 'processing_error';
  if (isApiError(error) && error.status === 429) return 'rate_limit';
  return 'auth_check_failed';
}

/** An answer that is not JSON, or not of the contract's shape. */
function isBadShape(error: unknown): boolean {
  return error instanceof ZodError || error instanceof SyntaxError;
}

function rethrowAbort(error: unknown): void {
  if (error instanceof DOMException && error.name === 'AbortError') throw error;
}
