import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { baseHandlers, errorBody, makeUser, mockApi } from '@/testing/mock-api';
import { writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';

const TEAMS = [
  { team_id: 1, team_name: 'Cardio Lab', role: 'Admin' },
  { team_id: 4, team_name: 'Sleep Study', role: 'User' },
];

const TRIAL = {
  trialId: 11,
  trialNumber: 'CARD-01',
  trialName: 'Cardio One',
  trialNotes: '',
  trialOwnerEmail: 'ada@example.org',
  teamId: 1,
  creationDate: '2025-01-02T10:00:00.000Z',
};

function start(teamStatus: string | null, overrides: Parameters<typeof mockApi>[0] = {}) {
  const reload = vi.fn();
  vi.stubGlobal('location', { ...window.location, reload });
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ teamStatus }) }),
    'GET /api/userTeamsData/7': { body: TEAMS },
    'GET /api/userTrials/': { body: [TRIAL] },
    'POST /api/selectTeam': { body: { message: 'Team selected', user: makeUser() } },
    ...overrides,
  });
  renderApp('/');
  return { ...api, reload };
}

describe('dashboard', () => {
  it('shows the trials table while the team is Active', async () => {
    start('Active');
    // The first render loads the lazy page and the table library: slow on a cold module graph.
    expect(await screen.findByTestId('dashboard-page', {}, { timeout: 60_000 })).toBeTruthy();
    expect(await screen.findByTestId('trial-row-11')).toBeTruthy();
    expect(screen.queryByTestId('team-inactive-message')).toBeNull();
  });

  it('shows the subscription message instead of the table for an inactive team', async () => {
    const { calls } = start('Expired');
    expect((await screen.findByTestId('team-inactive-message')).textContent).toBe(
      "The current team's subscription is no longer active or has expired.",
    );
    await screen.findByRole('combobox', { name: 'Team' });
    expect(screen.queryByTestId('trials-table')).toBeNull();
    expect(calls.some((call) => call.url === '/api/userTrials/')).toBe(false);
  });

  it('selects the current team and posts another choice, then reloads the page', async () => {
    const { calls, reload } = start('Active');
    const select = await screen.findByRole('combobox', { name: 'Team' });
    expect(select.textContent).toBe('Cardio Lab (Admin)');

    fireEvent.mouseDown(select);
    fireEvent.click(within(await screen.findByRole('listbox')).getByText('Sleep Study (User)'));

    await waitFor(() => expect(reload).toHaveBeenCalledOnce());
    expect(writes(calls).map((call) => [call.url, call.body])).toEqual([
      ['/api/selectTeam', { teamId: 4, teamName: 'Sleep Study', role: 'User' }],
    ]);
  });

  it('does not reload when the server refuses the team', async () => {
    const { reload } = start('Active', {
      'POST /api/selectTeam': {
        status: 403,
        body: errorBody('You are not a member of this team.', true, 'NOT_A_MEMBER'),
      },
    });
    fireEvent.mouseDown(await screen.findByRole('combobox', { name: 'Team' }));
    fireEvent.click(within(await screen.findByRole('listbox')).getByText('Sleep Study (User)'));

    expect((await screen.findByTestId('team-select-error')).textContent).toBe(
      'You are not a member of this team.',
    );
    expect(reload).not.toHaveBeenCalled();
  });
});
