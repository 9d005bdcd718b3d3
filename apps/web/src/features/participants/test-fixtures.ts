import type { DeviceConnection, Participant, Trial } from '@trialpulse/shared';
import { baseHandlers, makeUser, mockApi } from '@/testing/mock-api';
import type { SessionUser } from '@/lib/session';

/** Shared fixtures of the participants tests (not a test file itself). */
export const TRIAL: Trial = {
  trialId: 11,
  trialNumber: 'CARD-01',
  trialName: 'Cardio One',
  trialNotes: '',
  trialOwnerEmail: 'ada@example.org',
  teamId: 1,
  creationDate: '2025-01-02T10:00:00.000Z',
};

export function participant(id: number, overrides: Partial<Participant> = {}): Participant {
  const suffix = String(id).padStart(3, '0');
  return {
    id,
    participant_code: `CARD-${suffix}`,
    participant_code_suffix: suffix,
    email: `p${id}@example.org`,
    gender: 'female',
    age: 30 + id,
    notes: `note ${id}`,
    trialId: TRIAL.trialId,
    created_at: '2025-02-01T10:00:00.000Z',
    ...overrides,
  };
}

export type Handlers = Parameters<typeof mockApi>[0];

/** A never-linked connection, as `GET /api/participantConnections/{id}` lists it. */
export function notLinked(participantId: number, brand: 'Fitbit' | 'Omron'): DeviceConnection {
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
  };
}

/**
 * The device calls the composed device status column and device sections make, answered
 * "never linked" for participants 1 to 20 (the device tests cover the other answers).
 */
function notLinkedDeviceHandlers(): Handlers {
  const notFound = { message: 'not found', status: 'not_authorized', upstream: null };
  const handlers: Handlers = {
    // The batched status call of the table's page (decision 0041).
    'GET /api/deviceStatus': (call) => ({
      body: {
        statuses: (new URL(call.url, 'http://localhost').searchParams.get('ids') ?? '')
          .split(',')
          .map(Number)
          .map((participantId) => ({
            participantId,
            brands: (['Fitbit', 'Omron'] as const).map((brand) => ({
              brand,
              auth: notFound,
              devices: [],
              checkedAt: null,
            })),
          })),
      },
    }),
  };
  for (let id = 1; id <= 20; id += 1) {
    handlers[`GET /api/participantConnections/${id}`] = {
      body: { connections: [notLinked(id, 'Fitbit'), notLinked(id, 'Omron')] },
    };
  }
  return handlers;
}

/** Signed in as `role` (with `user` overrides) plus the participants API's happy answers. */
export function mockParticipantsApi(
  role: string,
  overrides: Handlers = {},
  user: Partial<SessionUser> = {},
) {
  return mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ role, ...user }) }),
    'GET /api/trialParticipants/11': { body: [participant(1), participant(2)] },
    'GET /api/trialParticipants/11/trialCode': { body: { trial_code: 'CARD' } },
    'GET /api/teamAllowedDevices/1': { body: [{ brand_name: 'Fitbit' }, { brand_name: 'Omron' }] },
    ...notLinkedDeviceHandlers(),
    ...overrides,
  });
}
