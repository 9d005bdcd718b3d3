import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { DEVICE_MESSAGES, type ConnectionSyncStatus, type Participant } from '@trialpulse/shared';
import { baseHandlers, makeUser, mockApi, type RecordedCall } from '@/testing/mock-api';
import { renderApp } from '@/testing/render-app';
import { SLEEP_STUDY as TRIAL } from '@/testing/study-fixtures';

const PARTICIPANT: Participant = {
  id: 5,
  participant_code: 'SLP-005',
  participant_code_suffix: '005',
  email: null,
  gender: 'female',
  age: 40,
  notes: null,
  trialId: 11,
  created_at: '2026-01-02T00:00:00.000Z',
};

const connection = (brand: ConnectionSyncStatus['brand']) => ({
  participantId: 5,
  brand,
  upstream: brand.toLowerCase(),
  state: 'up_to_date',
  backfillPercent: null,
  backoffUntil: null,
  errorType: null,
  lastSyncAt: null,
  earliestReading: null,
  latestReading: null,
  rowsStored: 0,
  metrics: [],
  nextSyncAt: null,
  enabledMetrics: [],
});

const omronCalls = (calls: RecordedCall[]) =>
  calls.filter((call) => call.url === '/api/getOmronParticipantData/5');

/** The participant's connections as the sync status lists them; Omron data answers empty. */
function serve(brands: ConnectionSyncStatus['brand'][]) {
  return mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'User' }) }),
    'GET /api/deviceSync/participant/5': { body: { connections: brands.map(connection) } },
    'GET /api/participant/5': { body: PARTICIPANT },
    'GET /api/userTrials/': { body: [TRIAL] },
    'POST /api/getOmronParticipantData/5': {
      body: { source: 'stored', bloodPressure: [], weight: [] },
    },
  });
}

describe.each([
  ['/OmronParticipantOverview', 'omron-overview-page'],
  ['/OmronParticipantDataPage', 'omron-data-page'],
])('%s', (path, testId) => {
  it('a participant who never linked Omron: says so and asks for no Omron data (no 409)', async () => {
    const { calls } = serve(['Fitbit']);
    renderApp(path, { state: { participant: PARTICIPANT, trial: TRIAL } });
    await screen.findByTestId(testId);
    expect((await screen.findByTestId('not-linked-Omron')).textContent).toBe(
      DEVICE_MESSAGES.notAuthorized,
    );
    expect(omronCalls(calls)).toEqual([]);
  });

  it('a participant with Omron: asks for the readings', async () => {
    const { calls } = serve(['Fitbit', 'Omron']);
    renderApp(path, { state: { participant: PARTICIPANT, trial: TRIAL } });
    await waitFor(() => expect(omronCalls(calls).length).toBeGreaterThan(0));
    expect(screen.queryByTestId('not-linked-Omron')).toBeNull();
  });
});
