import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import {
  FITBIT_PAGE_MESSAGES,
  fitbitResourcePaths,
  selectFitbitCategory,
  selectFitbitOption,
  type FitbitQueryForm,
} from '@trialpulse/shared/device-data/fitbit-query';
import { FITBIT_DATA_MESSAGES } from '@trialpulse/shared/device-data/fitbit-resource-path';
import { freezeDateAt } from '@/testing/clock';
import { errorBody, mockApi } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render-app';
import { localToday } from '../../common/utils/units';
import { FitbitQueryResults } from './fitbit-query-results';

const steps = selectFitbitOption(selectFitbitCategory('activities'), 'steps');
const url = (query: FitbitQueryForm, email = 'hidden') =>
  fitbitResourcePaths(query, localToday()).map(
    (path) => `GET /api/getFitbitServerParticipantData/7/${encodeURIComponent(email)}/${path}`,
  );

function show(query: FitbitQueryForm, email: string | null = null) {
  renderWithProviders(
    <FitbitQueryResults participantId={7} participantCode="P-7" email={email} query={query} />,
  );
}

describe('Fitbit query results (device-data §8 texts)', () => {
  // The answers are mocked for the paths of today's range (`url`), and the component asks
  // for its own today's: one fixed day for both, whenever the test runs.
  beforeEach(() => freezeDateAt());
  afterEach(() => {
    vi.useRealTimers();
  });

  it('draws the steps answer as a table, asking with the shown email', async () => {
    const [call] = url(steps, 'p7@example.org');
    const { calls } = mockApi({
      [call!]: { body: { 'activities-steps': [{ dateTime: '2026-11-01', value: '8123' }] } },
    });
    show(steps, 'p7@example.org');
    expect(await screen.findByText('8123')).toBeTruthy();
    expect(screen.getByText('Steps (steps)')).toBeTruthy();
    expect(calls[0]!.url).toContain('/p7%40example.org/activities/steps/date/');
  });

  it.each([
    [429, 'Too Many Requests', 'RATE_LIMITED', FITBIT_DATA_MESSAGES.tooManyRequests],
    [404, 'Could not find any data!', 'NO_DATA', FITBIT_DATA_MESSAGES.noData],
    [502, 'Internal', 'FITBIT_DATA_UNAVAILABLE', FITBIT_DATA_MESSAGES.couldNotGetData],
    [502, 'Internal', 'REFRESH_FAILED', FITBIT_DATA_MESSAGES.refreshFailed],
    [400, FITBIT_DATA_MESSAGES.badRequest, 'BAD_REQUEST', FITBIT_DATA_MESSAGES.badRequest],
  ])('status %i (%s, %s) shows "%s"', async (status, message, reason, shown) => {
    mockApi({ [url(steps)[0]!]: { status, body: errorBody(message, status < 500, reason) } });
    show(steps);
    expect(await screen.findByText(shown)).toBeTruthy();
  });

  it(FITBIT_PAGE_MESSAGES.activeMinutesFailed, async () => {
    const query = selectFitbitOption(selectFitbitCategory('activities'), 'activeMinutes');
    const [light, fair, very] = url(query);
    mockApi({
      [light!]: { body: { 'activities-tracker-minutesLightlyActive': [] } },
      [fair!]: { status: 502, body: errorBody('Internal', false, 'FITBIT_DATA_UNAVAILABLE') },
      [very!]: { body: { 'activities-tracker-minutesVeryActive': [] } },
    });
    show(query);
    expect(await screen.findByText(FITBIT_PAGE_MESSAGES.activeMinutesFailed)).toBeTruthy();
  });

  it(FITBIT_PAGE_MESSAGES.prepareFailed, async () => {
    const query = selectFitbitOption(selectFitbitCategory('sleep'), 'stages');
    mockApi({ [url(query)[0]!]: { body: { something: 'else' } } });
    show(query);
    expect(await screen.findByText(FITBIT_PAGE_MESSAGES.prepareFailed)).toBeTruthy();
  });

  it(`an empty answer: ${FITBIT_DATA_MESSAGES.noData}`, async () => {
    mockApi({ [url(steps)[0]!]: { body: { 'activities-steps': [] } } });
    show(steps);
    expect(await screen.findByText(FITBIT_DATA_MESSAGES.noData)).toBeTruthy();
  });
});
