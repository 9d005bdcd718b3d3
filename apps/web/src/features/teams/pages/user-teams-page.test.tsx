import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { baseHandlers, makeUser, mockApi } from '@/testing/mock-api';
import { writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';

const TEAMS = [
  { team_id: 1, team_name: 'Cardio Lab', role: 'Admin' },
  { team_id: 4, team_name: 'Sleep Study', role: 'Viewer' },
];

function start() {
  const reload = vi.fn();
  vi.stubGlobal('location', { ...window.location, reload });
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'Viewer', teamId: 4 }) }),
    'GET /api/userTeamsData/7': { body: TEAMS },
    'POST /api/selectTeam': { body: { message: 'Team selected', user: makeUser() } },
  });
  renderApp('/UserTeams');
  return { ...api, reload };
}

describe('/UserTeams', () => {
  it('lists the teams with the role in each and marks the selected one', async () => {
    start();
    const selected = await screen.findByTestId('user-team-row-4');
    expect(within(selected).getByText('Viewer')).toBeTruthy();
    expect(within(selected).getByTestId('team-selected-chip').textContent).toBe('Selected');
    expect(within(screen.getByTestId('user-team-row-1')).getByText('Admin')).toBeTruthy();
    expect(screen.queryByTestId('team-switch-4')).toBeNull();
  });

  it('switches team with the same call as the dashboard and reloads', async () => {
    const { calls, reload } = start();
    fireEvent.click(await screen.findByRole('button', { name: 'Switch' }));

    await waitFor(() => expect(reload).toHaveBeenCalledOnce());
    expect(writes(calls).map((call) => call.body)).toEqual([
      { teamId: 1, teamName: 'Cardio Lab', role: 'Admin' },
    ]);
  });
});
