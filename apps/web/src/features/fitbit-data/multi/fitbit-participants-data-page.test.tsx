import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { freezeDateAt } from '@/testing/clock';
import { baseHandlers, makeUser, mockApi } from '@/testing/mock-api';
import { renderApp } from '@/testing/render-app';
import {
  SLEEP_STUDY as TRIAL,
  sleepStudyParticipant as participant,
} from '@/testing/study-fixtures';

afterEach(() => vi.useRealTimers());

describe('/FitbitParticipantsDataPage', () => {
  it('names the periods as the Fitbit data page does ("7 days", not "7d")', async () => {
    mockApi({ ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'User' }) }) });
    renderApp('/FitbitParticipantsDataPage', {
      state: { participants: [participant(1, 'SLP-001'), participant(2, 'SLP-002')], trial: TRIAL },
    });
    const select = (await screen.findByTestId(
      'compare-period',
      {},
      { timeout: 60_000 },
    )) as HTMLSelectElement;
    const options = [...select.options].map((option) => [option.value, option.text]);
    expect(options).toEqual([
      ['', 'Select a period'],
      ['7d', '7 days'],
      ['30d', '30 days'],
      ['1m', '1 month'],
      ['3m', '3 months'],
      ['customDates', 'Custom dates'],
    ]);
  });

  it('date shortcuts: 7 days is the 7d period, 14 days custom dates, both ending today (decision 0190)', async () => {
    freezeDateAt();
    const { calls } = mockApi({
      ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'User' }) }),
    });
    renderApp('/FitbitParticipantsDataPage', {
      state: { participants: [participant(1, 'SLP-001')], trial: TRIAL },
    });
    const asked = () =>
      calls.filter((call) => call.url.includes('getFitbitServerParticipantData')).map((c) => c.url);
    fireEvent.click(await screen.findByTestId('compare-shortcuts-14', {}, { timeout: 60_000 }));
    await waitFor(() =>
      expect(asked().at(-1)).toMatch(/activities\/steps\/date\/2026-11-07\/2026-11-20\.json$/),
    );
    expect((screen.getByTestId('compare-period') as HTMLSelectElement).value).toBe('customDates');
    expect((screen.getByTestId('compare-start') as HTMLInputElement).value).toBe('2026-11-07');
    expect(screen.getByTestId('compare-shortcuts-14').getAttribute('aria-pressed')).toBe('true');

    fireEvent.click(screen.getByTestId('compare-shortcuts-7'));
    await waitFor(() =>
      expect(asked().at(-1)).toMatch(/activities\/steps\/date\/2026-11-20\/7d\.json$/),
    );
    expect(screen.queryByTestId('compare-start')).toBeNull();
    expect(screen.getByTestId('compare-shortcuts-7').getAttribute('aria-pressed')).toBe('true');
  });
});
