import { describe, expect, it } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/react';
import type { Role } from '@trialpulse/shared';
import { baseHandlers, makeUser, mockApi } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render-app';
import { Navbar } from './navbar';

async function renderNavbar(role: Role) {
  const api = mockApi(
    baseHandlers({
      kind: 'signed-in',
      user: makeUser({
        role,
        first_name: 'Grace',
        last_name: 'Hopper',
        username: 'ghopper',
        team_name: 'Sleep Study',
      }),
    }),
  );
  const view = renderWithProviders(<Navbar />);
  await screen.findByTestId('profile-menu-button');
  return { ...view, ...api };
}

describe('navbar', () => {
  it('shows Sys_Admin the Data Management link and the Sys Admin menu', async () => {
    await renderNavbar('Sys_Admin');

    expect(screen.getByTestId('nav-dashboard').getAttribute('href')).toBe('/');
    expect(screen.getByTestId('nav-data-export').getAttribute('href')).toBe('/DataExport');
    expect(screen.getByTestId('nav-data-management').getAttribute('href')).toBe(
      '/TeamDataRetention',
    );

    fireEvent.click(screen.getByRole('button', { name: 'Sys Admin' }));
    const menu = await screen.findByRole('menu');
    expect(
      within(menu).getByRole('menuitem', { name: 'Device Metrics' }).getAttribute('href'),
    ).toBe('/DeviceMetricsManager');
    expect(within(menu).getByRole('menuitem', { name: 'Database Info' }).getAttribute('href')).toBe(
      '/DbInfoPage',
    );
  });

  it('shows an Admin Data Export and Data Management (the route allows Admin), not the Sys Admin menu', async () => {
    await renderNavbar('Admin');

    expect(screen.getByTestId('nav-data-export')).toBeTruthy();
    expect(screen.getByTestId('nav-data-management').getAttribute('href')).toBe(
      '/TeamDataRetention',
    );
    expect(screen.queryByRole('button', { name: 'Sys Admin' })).toBeNull();
    // The team's pipeline clients (issue 31, decision 0240).
    expect(screen.getByTestId('nav-pipeline-clients').getAttribute('href')).toBe(
      '/TeamBackendClients',
    );
  });

  it('hides the Sys_Admin entries, Data Management and Pipeline Clients from a User but shows Data Export', async () => {
    await renderNavbar('User');

    expect(screen.getByTestId('nav-data-export')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Sys Admin' })).toBeNull();
    expect(screen.queryByTestId('nav-data-management')).toBeNull();
    expect(screen.queryByTestId('nav-pipeline-clients')).toBeNull();
  });

  it('hides Data Export from a Viewer', async () => {
    await renderNavbar('Viewer');

    expect(screen.getByTestId('nav-dashboard')).toBeTruthy();
    expect(screen.queryByTestId('nav-data-export')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Sys Admin' })).toBeNull();
  });

  it('profile menu shows name, username, team and role, and Logout ends the session', async () => {
    const { calls, router } = await renderNavbar('Admin');

    // Its name is the name it shows (WCAG 2.5.3, label in name), not the initials beside it.
    expect(screen.getByRole('button', { name: 'Grace Hopper' })).toBe(
      screen.getByTestId('profile-menu-button'),
    );
    fireEvent.click(screen.getByTestId('profile-menu-button'));
    const menu = await screen.findByRole('menu');
    expect(within(menu).getByTestId('profile-name').textContent).toBe('Grace Hopper');
    expect(within(menu).getByTestId('profile-username').textContent).toBe('ghopper');
    expect(within(menu).getByTestId('profile-team').textContent).toBe('Sleep Study');
    expect(within(menu).getByTestId('profile-role').textContent).toBe('Admin');
    expect(
      within(menu).getByRole('menuitem', { name: 'Change Password' }).getAttribute('href'),
    ).toBe('/ChangePwdReqPage');

    fireEvent.click(within(menu).getByRole('menuitem', { name: 'Logout' }));

    await screen.findByTestId('location-probe');
    expect(router.state.location.pathname).toBe('/LoginPage');
    const logout = calls.find((call) => call.method === 'POST' && call.url === '/api/auth/logout');
    expect(logout?.headers.get('x-csrf-token')).toBe('csrf-1');
  });
});
