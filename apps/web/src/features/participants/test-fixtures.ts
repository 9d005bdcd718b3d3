import type { Participant, Trial } from '@trialpulse/shared';
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
    ...overrides,
  });
}
