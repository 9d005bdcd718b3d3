import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import type { FitbitWeeklySummary } from '@trialpulse/shared';
import { baseHandlers, makeUser, mockApi } from '@/testing/mock-api';
import { renderApp } from '@/testing/render-app';
import {
  SLEEP_STUDY as TRIAL,
  sleepStudyParticipant as participant,
} from '@/testing/study-fixtures';

const SUMMARY: FitbitWeeklySummary = {
  participant_id: 5,
  avrg_resting_heart_rate_last_7days: 61.24,
  avrg_resting_heart_rate_prev_7days: 63,
  avrg_sleep_duration_last_7days: 450,
  avrg_sleep_duration_prev_7days: 420,
  total_steps_last_7days: 52_000,
  total_steps_prev_7days: 48_000,
  total_distance_last_7days: 32.18,
  total_distance_prev_7days: 30,
  total_floors_last_7days: 70,
  total_floors_prev_7days: null,
  avrg_weight_last_7days: 70,
  avrg_weight_prev_7days: 70.5,
  updated_at: null,
};

function open(role: string, path: string, state?: unknown, summary = SUMMARY) {
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ role }) }),
    'GET /api/fitbitDataLocalDB/5': { body: summary },
    'GET /api/participant/5': { body: participant(5, 'SLP-005') },
    'GET /api/userTrials/': { body: [TRIAL] },
  });
  return { ...api, ...renderApp(path, { state }) };
}

describe('/FitbitParticipantDataPage', () => {
  it('opens for a Viewer with the tiles of the weekly summary in miles, pounds and hours', async () => {
    const { router } = open('Viewer', '/FitbitParticipantDataPage', {
      participant: participant(5, 'SLP-005'),
      trial: TRIAL,
    });
    expect(await screen.findByTestId('fitbit-tile-value-steps')).toBeTruthy();
    const value = (id: string) => screen.getByTestId(`fitbit-tile-value-${id}`).textContent;
    expect(value('steps')).toBe('52,000');
    expect(value('distance')).toBe('20'); // 32.18 km ÷ 1.609
    expect(value('floors')).toBe('70');
    expect(value('heartRate')).toBe('61.2');
    expect(value('sleepDuration')).toBe('7.5');
    expect(value('weight')).toBe('154.3'); // 70 kg × 2.20462
    expect(screen.getByText('Return to Main Trial Page')).toBeTruthy();
    expect(screen.getByText(/TP-11 Sleep study/)).toBeTruthy();
    expect(screen.getByTestId('data-page-sidebar')).toBeTruthy();
    await waitFor(() => expect(router.state.location.search).toBe('?participantId=5'));
    expect(router.state.location.state).toMatchObject({ participant: { id: 5 } });
  });

  it('Show More / Show Less and Expand All Tables / Collapse All Tables', async () => {
    open('User', '/FitbitParticipantDataPage', {
      participant: participant(5, 'SLP-005'),
      trial: TRIAL,
    });
    fireEvent.click(await screen.findByTestId('fitbit-tile-more-floors'));
    expect(screen.getByTestId('fitbit-tile-table-floors').textContent).toContain(
      'Previous 7 days—',
    );
    expect(screen.getByTestId('fitbit-tile-more-floors').textContent).toBe('Show Less');
    fireEvent.click(screen.getByText('Expand All Tables'));
    expect(screen.getAllByText('Previous 7 days')).toHaveLength(6);
    fireEvent.click(screen.getByText('Collapse All Tables'));
    expect(screen.queryByText('Previous 7 days')).toBeNull();
    expect(screen.getByTestId('tiles-export-xlsx').hasAttribute('disabled')).toBe(true);
    fireEvent.click(screen.getByLabelText('Select Steps'));
    expect(screen.getByTestId('tiles-export-xlsx').hasAttribute('disabled')).toBe(false);
  });

  it('a link with ?participantId= opens that participant and their trial', async () => {
    const { router } = open('Admin', '/FitbitParticipantDataPage?participantId=5');
    expect(await screen.findByText('Fitbit data: SLP-005')).toBeTruthy();
    expect(await screen.findByText(/TP-11 Sleep study/)).toBeTruthy();
    expect(router.state.location.state).toMatchObject({
      participant: { id: 5 },
      trial: { trialId: 11 },
    });
  });

  it('the tiles say which days they cover: the week the summary was computed for', async () => {
    open(
      'Viewer',
      '/FitbitParticipantDataPage',
      { participant: participant(5, 'SLP-005'), trial: TRIAL },
      // Computed on 18 Nov (UTC, decision 0038) and read later: its days stay 12–18 Nov.
      { ...SUMMARY, updated_at: '2026-11-18T09:30:00.000Z' },
    );
    expect((await screen.findByTestId('fitbit-tile-days-steps')).textContent).toBe(
      '7 days: 12–18 Nov',
    );
    expect(screen.getByTestId('fitbit-tile-days-weight').textContent).toBe('7 days: 12–18 Nov');
    expect(screen.getByTestId('fitbit-tiles-days').textContent).toBe(
      '7 days: 12–18 Nov · previous 7 days: 5–11 Nov',
    );
  });

  it('the tiles cover the days the server names: the participant’s complete local days', async () => {
    open(
      'Viewer',
      '/FitbitParticipantDataPage',
      { participant: participant(5, 'SLP-005'), trial: TRIAL },
      // Computed on 18 Nov (UTC) for a participant whose last complete day was 17 Nov.
      {
        ...SUMMARY,
        updated_at: '2026-11-18T09:30:00.000Z',
        last_7days_start: '2026-11-11',
        last_7days_end: '2026-11-17',
        prev_7days_start: '2026-11-04',
        prev_7days_end: '2026-11-10',
      },
    );
    expect((await screen.findByTestId('fitbit-tile-days-steps')).textContent).toBe(
      '7 days: 11–17 Nov',
    );
    expect(screen.getByTestId('fitbit-tiles-days').textContent).toBe(
      '7 days: 11–17 Nov · previous 7 days: 4–10 Nov',
    );
  });
});
