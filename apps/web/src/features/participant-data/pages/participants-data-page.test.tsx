import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import type { Participant } from '@trialpulse/shared';
import { baseHandlers, makeUser, mockApi } from '@/testing/mock-api';
import { renderApp } from '@/testing/render-app';
import {
  SLEEP_STUDY as TRIAL,
  sleepStudyParticipant as participant,
} from '@/testing/study-fixtures';

function open(participants: Participant[]) {
  mockApi({ ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'User' }) }) });
  return renderApp('/ParticipantsDataPage', { state: { participants, trial: TRIAL } });
}

const heading = async () => (await screen.findByRole('heading', { level: 1 })).textContent;

describe('/ParticipantsDataPage and the side-by-side pages', () => {
  it('counts one participant in the singular (Fitbit side)', async () => {
    open([participant(1, 'SLP-001')]);
    expect(await heading()).toBe('Data of 1 participant');
    fireEvent.change(screen.getByLabelText('Device'), { target: { value: 'fitbit' } });
    fireEvent.click(screen.getByTestId('participants-data-continue'));
    await screen.findByTestId('fitbit-participants-data-page', {}, { timeout: 60_000 });
    expect(await heading()).toBe('Fitbit data of 1 participant');
  });

  it('counts several participants in the plural', async () => {
    open([participant(1, 'SLP-001'), participant(2, 'SLP-002')]);
    expect(await heading()).toBe('Data of 2 participants');
    fireEvent.change(screen.getByLabelText('Device'), { target: { value: 'omron' } });
    fireEvent.click(screen.getByTestId('participants-data-continue'));
    await screen.findByTestId('omron-participants-data-page', {}, { timeout: 60_000 });
    expect(await heading()).toBe('Omron data of 2 participants');
  });

  it('counts one participant in the singular (Omron side)', async () => {
    open([participant(1, 'SLP-001')]);
    fireEvent.change(await screen.findByLabelText('Device'), { target: { value: 'omron' } });
    fireEvent.click(screen.getByTestId('participants-data-continue'));
    await screen.findByTestId('omron-participants-data-page', {}, { timeout: 60_000 });
    expect(await heading()).toBe('Omron data of 1 participant');
  });

  it('the Omron page has the return bar to the trial, as the Fitbit page', async () => {
    const { router } = open([participant(1, 'SLP-001')]);
    fireEvent.change(await screen.findByLabelText('Device'), { target: { value: 'omron' } });
    fireEvent.click(screen.getByTestId('participants-data-continue'));
    await screen.findByTestId('omron-participants-data-page', {}, { timeout: 60_000 });
    expect(screen.getByTestId('return-to-trial-bar').textContent).toBe(
      'Return to Main Trial Page — TP-11 Sleep study',
    );
    fireEvent.click(screen.getByRole('link', { name: 'Return to Main Trial Page' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/TrialPage'));
    expect(router.state.location.state).toMatchObject({ trial: { trialId: 11 } });
  });
});
