import { describe, expect, it } from 'vitest';
import { fireEvent, screen } from '@testing-library/react';
import type { Trial } from '@trialpulse/shared';
import { baseHandlers, makeUser, mockApi } from '@/testing/mock-api';
import { renderApp } from '@/testing/render-app';

const TRIAL: Trial = {
  trialId: 11,
  trialNumber: 'CARD-01',
  trialName: 'Cardio One',
  trialNotes: '',
  trialOwnerEmail: 'ada@example.org',
  teamId: 1,
  creationDate: '2025-01-02T10:00:00.000Z',
};

function start(role: string, state?: unknown) {
  mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ role }) }),
    'GET /api/trialUsers/11': { body: [{ id: 7, email: 'ada@example.org', isOwner: true }] },
    'GET /api/trialParticipants/11': { body: [] },
  });
  return renderApp('/TrialPage', { state });
}

describe('trial page header', () => {
  it('shows the trial from the navigation state and the users link for an Admin', async () => {
    const { router } = start('Admin', { trial: TRIAL });
    expect((await screen.findByTestId('trial-title')).textContent).toBe(
      'Trial: #CARD-01 - Cardio One',
    );
    expect(await screen.findByTestId('participants-table')).toBeTruthy();
    const link = screen.getByRole('link', { name: 'Manage Users for this trial' });
    fireEvent.click(link);

    expect(await screen.findByTestId('trial-users-page')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/TrialUsers');
    expect(router.state.location.state).toEqual({ trial: TRIAL });
  });

  it('reads the trial stored locally after a reload and hides the link from a User', async () => {
    localStorage.setItem('tp.currentTrial', JSON.stringify(TRIAL));
    start('User');
    expect((await screen.findByTestId('trial-title')).textContent).toBe(
      'Trial: #CARD-01 - Cardio One',
    );
    expect(screen.queryByTestId('manage-trial-users-link')).toBeNull();
  });

  it('asks to pick a trial when none is known', async () => {
    localStorage.setItem('tp.currentTrial', '{"trialId":"broken"}');
    start('Admin');
    expect(await screen.findByText('Please select a trial from the dashboard.')).toBeTruthy();
    expect(screen.getByTestId('go-home').getAttribute('href')).toBe('/');
  });
});
