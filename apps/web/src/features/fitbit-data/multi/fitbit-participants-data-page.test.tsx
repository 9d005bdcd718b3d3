import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { baseHandlers, makeUser, mockApi } from '@/testing/mock-api';
import { renderApp } from '@/testing/render-app';
import {
  SLEEP_STUDY as TRIAL,
  sleepStudyParticipant as participant,
} from '@/testing/study-fixtures';

describe('/FitbitParticipantsDataPage', () => {
  it('names the periods as the Fitbit data page does ("7 days", not "7d")', async () => {
    mockApi({ ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'User' }) }) });
    renderApp('/FitbitParticipantsDataPage', {
      state: { participants: [participant(1, 'SLP-001'), participant(2, 'SLP-002')], trial: TRIAL },
    });
    const select = (await screen.findByTestId(
      'compare-period',
      {},
      { timeout: 15_000 },
    )) as HTMLSelectElement;
    const options = [...select.options].map((option) => [option.value, option.text]);
    expect(options).toEqual([
      ['', 'Select a period'],
      ['7d', '7 days'],
      ['30d', '30 days'],
      ['1m', '1 month'],
      ['3m', '3 months'],
    ]);
  });
});
