import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import type { Participant } from '@trialpulse/shared';
import { baseHandlers, json, makeUser, mockApi } from '@/testing/mock-api';
import { TEST_NOW, freezeDateAt } from '@/testing/clock';
import { renderApp } from '@/testing/render-app';
import { SLEEP_STUDY as TRIAL } from '@/testing/study-fixtures';
import { todayText } from './intraday';

// jsdom draws no canvas: the chart is a marker here (the browser tests draw the real one).
vi.mock('@/components/charts/chart-figure', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  ChartFigure: ({ testId }: { testId: string }) => <div data-testid={testId} />,
}));

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

/** A day's heart-rate and steps answer in the legacy Fitbit shape (two points each). */
const intraday = (url: string) =>
  json(
    200,
    url.includes('/activities/heart/')
      ? {
          'activities-heart-intraday': {
            dataset: [
              { time: '08:00:00', value: 61 },
              { time: '08:01:00', value: 64 },
            ],
          },
        }
      : {
          'activities-steps-intraday': {
            dataset: [
              { time: '08:00:00', value: 40 },
              { time: '08:01:00', value: 60 },
            ],
          },
        },
  );

describe('/FitbitParticipant1DayData', () => {
  beforeEach(() => freezeDateAt(TEST_NOW));
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a future day shows only the message, not the previous day's figures", async () => {
    const { fetchMock } = mockApi({
      ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'User' }) }),
      'GET /api/participant/5': { body: PARTICIPANT },
      'GET /api/userTrials/': { body: [TRIAL] },
    });
    const routed = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (input, init) =>
      String(input).startsWith('/api/getFitbitServerParticipantData/5/')
        ? intraday(String(input))
        : routed(input, init),
    );
    renderApp('/FitbitParticipant1DayData?day=2026-11-19', {
      state: { participant: PARTICIPANT, trial: TRIAL },
    });
    // The day with data: its figures.
    expect(await screen.findByText('61–64 bpm')).toBeTruthy();
    expect(screen.getByText('Heart-rate points')).toBeTruthy();
    expect(await screen.findByTestId('one-day-chart')).toBeTruthy();

    const future = '2026-11-22';
    expect(future > todayText()).toBe(true);
    fireEvent.change(screen.getByTestId('one-day-date'), { target: { value: future } });

    expect(await screen.findByText('Start date cannot be in the future.')).toBeTruthy();
    // The page itself stays (the day field keeps the picked day and says why).
    expect(screen.getByTestId('fitbit-one-day-page')).toBeTruthy();
    await waitFor(() => expect(screen.queryByText('61–64 bpm')).toBeNull());
    expect(screen.queryByText('Heart-rate points')).toBeNull();
    expect(screen.queryByText('Steps')).toBeNull();
    expect(screen.queryByTestId('one-day-chart')).toBeNull();
    // Nor an empty chart frame with its caption under the message.
    expect(screen.queryByTestId('one-day-chart-box')).toBeNull();
    expect(screen.queryByText(/Scroll to zoom/)).toBeNull();
  });
});
