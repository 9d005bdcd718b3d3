import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { Participant } from '@trialpulse/shared';
import type { ParticipantOverview } from '@trialpulse/shared/device-data/device-data.schemas';
import { DEVICE_ERROR_REASONS, DEVICE_MESSAGES } from '@trialpulse/shared';
import { baseHandlers, errorBody, json, makeUser, mockApi } from '@/testing/mock-api';
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
const metric = (metricKey: string, latestValue: number | null) => ({
  metricKey,
  rows: latestValue === null ? 0 : 3,
  earliest: latestValue === null ? null : '2026-11-20T00:00:00.000Z',
  latest: latestValue === null ? null : '2026-11-24T00:00:00.000Z',
  latestValue,
});
const OVERVIEW: ParticipantOverview = {
  participantId: 5,
  brands: [
    {
      brand: 'Fitbit',
      metrics: [
        metric('steps', 10_646),
        metric('distance', 8.7),
        metric('resting_heart_rate', 58),
        metric('sleep_duration', 452),
        metric('weight', 62),
      ],
    },
  ],
};

describe('/ParticipantOverview', () => {
  it('shows the Fitbit tiles in the Fitbit data page units: miles, pounds, hours, thousands separated', async () => {
    mockApi({
      ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'User' }) }),
      'GET /api/participantOverview/5': { body: OVERVIEW },
      'GET /api/participant/5': { body: PARTICIPANT },
      'GET /api/userTrials/': { body: [TRIAL] },
    });
    renderApp('/ParticipantOverview', { state: { participant: PARTICIPANT, trial: TRIAL } });
    const tiles = within(await screen.findByTestId('overview-fitbit'));
    const value = async (key: string) =>
      (await tiles.findByTestId(`overview-fitbit-tile-${key}`)).textContent;
    expect(await value('steps')).toBe('Steps10,646 steps2026-11-24');
    expect(await value('distance')).toBe('Distance5.41 mi2026-11-24'); // 8.7 km ÷ 1.609
    expect(await value('resting_heart_rate')).toBe('Heart Rate58 bpm2026-11-24');
    expect(await value('sleep_duration')).toBe('Sleep Duration7.5 h2026-11-24'); // 452 min
    expect(await value('weight')).toBe('Weight136.7 lbs2026-11-24'); // 62 kg × 2.20462
    expect(await value('floors')).toBe('FloorsCould not find any data!');
  });

  it('links the Fitbit section to the Fitbit overview, the way to the one-day and daily-values pages', async () => {
    mockApi({
      ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'User' }) }),
      'GET /api/participantOverview/5': { body: OVERVIEW },
      'GET /api/participant/5': { body: PARTICIPANT },
      'GET /api/userTrials/': { body: [TRIAL] },
    });
    const { router } = renderApp('/ParticipantOverview', {
      state: { participant: PARTICIPANT, trial: TRIAL },
    });
    const section = within(await screen.findByTestId('overview-fitbit'));
    fireEvent.click(section.getByRole('link', { name: 'Open Fitbit overview' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/FitbitParticipantOverview'));
    expect(router.state.location.state).toMatchObject({ participant: { id: 5 } });
  });

  it('says a device the participant has not linked is not authorised as information, not as an error', async () => {
    const notLinked = () =>
      json(409, errorBody(DEVICE_MESSAGES.notAuthorized, true, DEVICE_ERROR_REASONS.notAuthorized));
    const { fetchMock } = mockApi({
      ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'User' }) }),
      'GET /api/participantOverview/5': {
        body: {
          participantId: 5,
          brands: [
            { brand: 'Omron', metrics: [] },
            { brand: 'Dexcom', metrics: [] },
          ],
        },
      },
      'GET /api/participant/5': { body: PARTICIPANT },
      'GET /api/userTrials/': { body: [TRIAL] },
      'POST /api/getOmronParticipantData/5': notLinked,
    });
    // The Dexcom call carries its period in the path: answer it by prefix.
    const routed = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (input, init) =>
      String(input).startsWith('/api/getDexcomParticipantData/5/')
        ? notLinked()
        : routed(input, init),
    );
    renderApp('/ParticipantOverview', { state: { participant: PARTICIPANT, trial: TRIAL } });
    for (const section of ['overview-omron', 'overview-dexcom']) {
      const alert = await within(await screen.findByTestId(section)).findByRole('alert');
      expect(alert.textContent).toBe(DEVICE_MESSAGES.notAuthorized);
      expect(alert.className).toContain('MuiAlert-colorInfo');
    }
  });
});
