import { useEffect, useMemo, useState } from 'react';
import { ZodError } from 'zod';
import {
  LIMITS,
  type AuthorisedDeviceEntry,
  type DeviceBrandName,
  type DeviceErrorType,
  type IsAuthResponse,
} from '@trialpulse/shared';
import { isApiError } from '@/lib/api-client';
import { getIsParticipantAuth } from '../api/get-is-participant-auth';
import { getParticipantDevices } from '../api/get-participant-devices';

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

/** The order of the checks within one participant (access spec §4, Dexcom last). */
const CHECK_ORDER: readonly DeviceBrandName[] = ['Fitbit', 'Omron', 'Dexcom'];

/**
 * The device status refresh of access spec §4: for each participant in turn, the Fitbit
 * authorisation check ('found' means authorised) and, when authorised, the Fitbit device
 * list; then the Omron check, then the Dexcom check — only for brands the team allows.
 * Participants are 100 ms apart (`LIMITS.deviceStatusGapMs`); a cycle starts every
 * 300000 ms (`LIMITS.deviceStatusRefreshMs`), or as soon as the previous one ends if it
 * took longer. A failed check becomes an error entry and the cycle goes on; unmounting,
 * or a change of participants or brands, stops it (calls in flight are aborted).
 */
export function useDeviceStatusCycle(
  participants: readonly { id: number }[],
  { brands, enabled = true }: CycleOptions,
): DeviceStatusCycle {
  const [statuses, setStatuses] = useState<Record<number, ParticipantDeviceStatus>>({});
  const idsKey = participants.map((participant) => participant.id).join(',');
  const brandsKey = CHECK_ORDER.filter((brand) => brands.includes(brand)).join(',');

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
        for (const [index, id] of ids.entries()) {
          if (index > 0) await pause(LIMITS.deviceStatusGapMs);
          const status = await checkParticipant(id, checked, controller.signal);
          if (controller.signal.aborted) return;
          setStatuses((current) => ({ ...current, [id]: status }));
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

async function checkParticipant(
  participantId: number,
  brands: readonly DeviceBrandName[],
  signal: AbortSignal,
): Promise<ParticipantDeviceStatus> {
  const checked: BrandDeviceStatus[] = [];
  for (const brand of brands) {
    // A mocked or slow fetch may ignore the signal: no further call once stopped.
    if (signal.aborted) throw new DOMException('The cycle stopped.', 'AbortError');
    checked.push(await checkBrand(brand, participantId, signal));
  }
  return { brands: checked };
}

async function checkBrand(
  brand: DeviceBrandName,
  participantId: number,
  signal: AbortSignal,
): Promise<BrandDeviceStatus> {
  let auth: IsAuthResponse;
  try {
    auth = await getIsParticipantAuth(brand, participantId, signal);
  } catch (error) {
    rethrowAbort(error);
    const errorType = isBadShape(error) ? 'processing_error' : 'auth_check_failed';
    return { brand, auth: null, devices: [deviceErrorEntry(brand, errorType)] };
  }
  if (brand !== 'Fitbit' || auth.message !== 'found') return { brand, auth, devices: [] };

  try {
    return { brand, auth, devices: await getParticipantDevices(brand, participantId, signal) };
  } catch (error) {
    rethrowAbort(error);
    return { brand, auth, devices: [deviceErrorEntry(brand, deviceListErrorType(error))] };
  }
}

/** A failed device-list call: wrong shape, our rate limit, or the call did not get through. */
function deviceListErrorType(error: unknown): DeviceErrorType {
  if (isBadShape(error)) return 'processing_error';
  if (isApiError(error) && error.status === 429) return 'rate_limit';
  return 'connection_error';
}

/** An answer that is not JSON, or not of the contract's shape. */
function isBadShape(error: unknown): boolean {
  return error instanceof ZodError || error instanceof SyntaxError;
}

function rethrowAbort(error: unknown): void {
  if (error instanceof DOMException && error.name === 'AbortError') throw error;
}
