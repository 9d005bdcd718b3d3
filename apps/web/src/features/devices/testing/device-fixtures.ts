import type {
  AuthorisedDeviceEntry,
  DeviceBrandName,
  DeviceConnection,
  IsAuthResponse,
  Participant,
  Trial,
} from '@trialpulse/shared';
import type { SessionUser } from '@/lib/session';
import { baseHandlers, makeUser, mockApi, type RecordedCall } from '@/testing/mock-api';

/** Shared fixtures of the device tests (not a test file itself). */

export type Handlers = Parameters<typeof mockApi>[0];

export const TRIAL: Trial = {
  trialId: 11,
  trialNumber: 'CARD-01',
  trialName: 'Cardio One',
  trialNotes: '',
  trialOwnerEmail: 'ada@example.org',
  teamId: 1,
  creationDate: '2025-01-02T10:00:00.000Z',
};

export function participant(id: number): Participant {
  const suffix = String(id).padStart(3, '0');
  return {
    id,
    participant_code: `CARD-${suffix}`,
    participant_code_suffix: suffix,
    email: `p${id}@example.org`,
    gender: 'female',
    age: 30 + id,
    notes: null,
    trialId: TRIAL.trialId,
    created_at: '2025-02-01T10:00:00.000Z',
  };
}

export const FOUND: IsAuthResponse = {
  message: 'found',
  status: 'authorized',
  upstream: 'google-health',
};
export const NOT_FOUND: IsAuthResponse = {
  message: 'not found',
  status: 'not_authorized',
  upstream: null,
};

export function device(overrides: Partial<AuthorisedDeviceEntry> = {}): AuthorisedDeviceEntry {
  return {
    device: 'Fitbit',
    deviceVersion: 'Charge 6',
    deviceType: 'TRACKER',
    batteryLevel: 95,
    battery: 'High',
    lastSyncTime: '2025-03-01T10:00:00.000Z',
    hasError: false,
    errorType: null,
    ...overrides,
  };
}

export function errorEntry(errorType: AuthorisedDeviceEntry['errorType']): AuthorisedDeviceEntry {
  return device({
    deviceVersion: null,
    deviceType: null,
    batteryLevel: null,
    battery: null,
    lastSyncTime: null,
    hasError: true,
    errorType,
  });
}

export function connection(
  participantId: number,
  brand: DeviceBrandName,
  overrides: Partial<DeviceConnection> = {},
): DeviceConnection {
  return {
    participantId,
    participantCode: participant(participantId).participant_code,
    trialId: TRIAL.trialId,
    trialNumber: TRIAL.trialNumber,
    brand,
    upstream: null,
    status: 'not_authorized',
    authorizationDate: null,
    tokenExpiresAt: null,
    lastRefreshedAt: null,
    scopes: [],
    ...overrides,
  };
}

export const brandsAllowed = (...brands: DeviceBrandName[]) => ({
  body: brands.map((brand_name) => ({ brand_name })),
});

/**
 * Signed in as `role` on team 1, which allows Fitbit and Omron; trial 11 has participants
 * 1 and 2. Device calls are left to `overrides`.
 */
export function mockDevicesApi(
  role: string,
  overrides: Handlers = {},
  user: Partial<SessionUser> = {},
) {
  return mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ role, ...user }) }),
    'GET /api/trialParticipants/11': { body: [participant(1), participant(2)] },
    'GET /api/teamAllowedDevices/1': brandsAllowed('Fitbit', 'Omron'),
    'GET /api/participant/2': { body: participant(2) },
    ...overrides,
  });
}

/** One brand of one participant in a `GET /api/deviceStatus` answer. */
export type BrandStatus = { auth: IsAuthResponse; devices?: AuthorisedDeviceEntry[] };
export type StatusByParticipant = Record<number, Partial<Record<DeviceBrandName, BrandStatus>>>;

/** The participant ids of a `GET /api/deviceStatus?ids=…` call. */
export const statusIdsOf = (call: RecordedCall) =>
  (new URL(call.url, 'http://localhost').searchParams.get('ids') ?? '').split(',').map(Number);

/**
 * A `GET /api/deviceStatus` handler as the server answers it: the requested participants
 * that `byParticipant` knows (others are left out), each with `brands` in check order; a
 * brand not given is not authorised.
 */
export function deviceStatusAnswer(
  byParticipant: StatusByParticipant,
  brands: readonly DeviceBrandName[] = ['Fitbit', 'Omron'],
) {
  return (call: RecordedCall) => ({
    body: {
      statuses: statusIdsOf(call)
        .filter((id) => byParticipant[id] !== undefined)
        .map((participantId) => ({
          participantId,
          brands: brands.map((brand) => ({
            brand,
            auth: byParticipant[participantId]?.[brand]?.auth ?? NOT_FOUND,
            devices: byParticipant[participantId]?.[brand]?.devices ?? [],
            checkedAt: null,
          })),
        })),
    },
  });
}
