import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { baseHandlers, makeUser, mockApi } from '@/testing/mock-api';
import { freezeDateAt } from '@/testing/clock';
import { renderApp } from '@/testing/render-app';
import {
  SLEEP_STUDY as TRIAL,
  sleepStudyParticipant as participant,
} from '@/testing/study-fixtures';

afterEach(() => vi.useRealTimers());

describe('/FitbitParticipantDataForm', () => {
  it('a date shortcut sets both dates ending today and shows the table (decision 0166)', async () => {
    freezeDateAt();
    const path = 'activities/steps/date/2026-10-22/2026-11-20.json';
    const { calls } = mockApi({
      ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'Viewer' }) }),
      [`GET /api/getFitbitServerParticipantData/5/${encodeURIComponent('p5@example.org')}/${path}`]:
        {
          body: { 'activities-steps': [{ dateTime: '2026-11-20', value: '4321' }] },
        },
    });
    renderApp('/FitbitParticipantDataForm', {
      state: {
        participant: { ...participant(5, 'SLP-005'), email: 'p5@example.org' },
        trial: TRIAL,
      },
    });
    fireEvent.click(await screen.findByTestId('data-form-shortcuts-30', {}, { timeout: 60_000 }));
    const start = screen.getByTestId('data-form-start') as HTMLInputElement;
    expect(start.value).toBe('2026-10-22');
    expect((screen.getByTestId('data-form-end') as HTMLInputElement).value).toBe('2026-11-20');
    expect(screen.getByTestId('data-form-shortcuts-30').getAttribute('aria-pressed')).toBe('true');
    await waitFor(() => expect(calls.some((call) => call.url.endsWith(path))).toBe(true));
    expect(await screen.findByText('4,321')).toBeTruthy();
  });
});
