import { vi } from 'vitest';
import type { Participant, Trial } from '@trialpulse/shared';
import { baseHandlers, makeUser, mockApi, type SessionFixture } from '@/testing/mock-api';

/** Shared fixtures of the device-consent tests (not a test file itself). */
export const TRIAL: Trial = {
  trialId: 11,
  trialNumber: 'CARD-01',
  trialName: 'Cardio One',
  trialNotes: '',
  trialOwnerEmail: 'ada@example.org',
  teamId: 1,
  creationDate: '2025-01-02T10:00:00.000Z',
};

const OTHER_TRIAL: Trial = { ...TRIAL, trialId: 12, trialNumber: 'CARD-02', trialName: 'Two' };

export const PARTICIPANT: Participant = {
  id: 2,
  participant_code: 'CARD-002',
  participant_code_suffix: '002',
  email: 'p2@example.org',
  gender: 'female',
  age: 32,
  notes: null,
  trialId: TRIAL.trialId,
  created_at: '2025-02-01T10:00:00.000Z',
};

export const PROVIDER_URL = 'https://provider.example/oauth2/authorize?state=abc';

export type Handlers = Parameters<typeof mockApi>[0];

export const SIGNED_OUT: SessionFixture = { kind: 'signed-out' };
export const signedIn = (role = 'User'): SessionFixture => ({
  kind: 'signed-in',
  user: makeUser({ role }),
});

/** The session plus the device-consent API's happy answers. */
export function mockDeviceApi(session: SessionFixture, overrides: Handlers = {}) {
  return mockApi({
    ...baseHandlers(session),
    'GET /api/userTrials/': { body: [OTHER_TRIAL, TRIAL] },
    'GET /api/participant/2': { body: PARTICIPANT },
    ...overrides,
  });
}

/**
 * Replaces `window.location` (jsdom cannot navigate, and its `assign` cannot be spied on)
 * with a copy whose `assign` is a mock; vitest restores the real one after each test.
 */
export function stubLocationAssign() {
  const assign = vi.fn();
  vi.stubGlobal('location', Object.assign(new URL(window.location.href), { assign }));
  return assign;
}
