import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { TEAM_MESSAGES } from '@trialpulse/shared';
import { baseHandlers, makeUser, mockApi } from '@/testing/mock-api';
import { writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';

const TEAM = {
  team_id: 3,
  team_name: 'Cardio Lab',
  is_active: true,
  subscription_starts: '2025-01-01T00:00:00.000Z',
  subscription_ends: '2026-01-01T00:00:00.000Z',
  subscription_type: 'Annual',
  max_users: 10,
  actual_num_of_users: 4,
  max_trials: 5,
  actual_num_of_trials: 2,
  max_participants: 100,
  actual_num_of_participants: 40,
  team_admin_email: 'lead@example.org',
  team_admin_phone: '+44 20 1234',
  organization: 'Heart Institute',
  notes: null,
  monthly_rate_per_participant: 2.5,
  retention_days: 30,
  storage_location: 'eu-west',
  hidden_fields: ['email'],
  allowed_brands: ['Fitbit'],
  supported_device_ids: [1],
};

const CATALOG = [
  { id: 1, manufacturer: 'Fitbit', device_type: 'TRACKER', device_name: 'Fitbit Sense' },
  { id: 2, manufacturer: 'Omron', device_type: 'SCALE', device_name: 'Omron Scale' },
];

async function open() {
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'Sys_Admin' }) }),
    'GET /api/admin/teams': { body: [TEAM] },
    'GET /api/admin/deviceCatalog': { body: CATALOG },
    'POST /api/admin/teams': { body: { team_id: 9 } },
    'PUT /api/admin/teams/3': { body: { message: 'Team updated' } },
    'GET /api/sysAdminTeamsData': {
      body: {
        rows: [
          {
            ...TEAM,
            hidden_fields: undefined,
            allowed_brands: undefined,
            supported_device_ids: undefined,
          },
        ],
        total: 1,
        totalIsExact: true,
      },
    },
  });
  renderApp('/DbInfoPage');
  // The first render loads the lazy page and the table library: slow on a cold module graph.
  await screen.findByTestId('team-row-edit-3', {}, { timeout: 60_000 });
  return api;
}

/** Like `fill`, inside the dialog: the table behind it makes whole-page label lookups slow. */
function fillIn(dialog: HTMLElement, label: string, value: string) {
  fireEvent.change(within(dialog).getByLabelText(label), { target: { value } });
}

async function openDialog(button: string, title: string) {
  fireEvent.click(screen.getByTestId(button));
  const dialog = await screen.findByRole('dialog', { name: title });
  await within(dialog).findByRole('combobox', { name: 'Supported Devices' });
  return dialog;
}

describe('team administration (/DbInfoPage, Teams tab)', () => {
  it('lists the teams with their usage', async () => {
    await open();
    expect(screen.getByTestId('page-title').textContent).toBe('Sys Director Info Page');
    const row = screen.getByTestId('team-row-edit-3').closest('tr')!;
    expect(within(row).getByText('Cardio Lab')).toBeTruthy();
    expect(within(row).getByText('2 / 5')).toBeTruthy();
    expect(within(row).getByText('40 / 100')).toBeTruthy();
  });

  it('creates a team with every field, brands and devices', async () => {
    const { calls } = await open();
    const dialog = await openDialog('new-team-button', 'New Team');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText(TEAM_MESSAGES.nameRequired)).toBeTruthy();
    expect(writes(calls)).toHaveLength(0);

    fillIn(dialog, 'Team Name', 'Sleep Study');
    fillIn(dialog, 'Subscription Starts', '2025-03-01');
    fillIn(dialog, 'Subscription Ends', '2026-02-28');
    fillIn(dialog, 'Subscription Type', 'Monthly');
    fillIn(dialog, 'Max Trials', '3');
    fillIn(dialog, 'Team Admin Email', 'boss@example.org');
    fillIn(dialog, 'Organization', 'Sleep Center');
    fillIn(dialog, 'Monthly Rate per Participant', '1.75');
    fillIn(dialog, 'Retention Days', '60');
    fillIn(dialog, 'Storage Location', 'eu-central');
    fireEvent.click(within(dialog).getByLabelText('Hide notes'));
    fireEvent.click(within(dialog).getByLabelText('Omron'));
    fireEvent.mouseDown(within(dialog).getByRole('combobox', { name: 'Supported Devices' }));
    fireEvent.click(within(await screen.findByRole('listbox')).getByText('Omron Scale'));
    fireEvent.keyDown(screen.getByRole('listbox'), { key: 'Escape' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(writes(calls)).toHaveLength(1));
    expect(writes(calls)[0]!.url).toBe('/api/admin/teams');
    expect(writes(calls)[0]!.body).toEqual({
      team_name: 'Sleep Study',
      is_active: true,
      subscription_starts: '2025-03-01T00:00:00.000Z',
      subscription_ends: '2026-02-28T00:00:00.000Z',
      subscription_type: 'Monthly',
      max_users: 10,
      max_trials: 3,
      max_participants: 100,
      team_admin_email: 'boss@example.org',
      team_admin_phone: null,
      organization: 'Sleep Center',
      notes: null,
      monthly_rate_per_participant: 1.75,
      retention_days: 60,
      storage_location: 'eu-central',
      hidden_fields: ['email'],
      allowed_brands: ['Omron'],
      supported_device_ids: [2],
    });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'New Team' })).toBeNull());
  });

  it('edits a team starting from its record and refuses an end before the start', async () => {
    const { calls } = await open();
    const dialog = await openDialog('team-row-edit-3', 'Edit Team');
    expect((within(dialog).getByLabelText('Team Name') as HTMLInputElement).value).toBe(
      'Cardio Lab',
    );
    fillIn(dialog, 'Subscription Ends', '2024-12-31');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText(TEAM_MESSAGES.endsBeforeStart)).toBeTruthy();
    expect(writes(calls)).toHaveLength(0);

    fillIn(dialog, 'Subscription Ends', '2026-06-30');
    fireEvent.click(within(dialog).getByTestId('team-is-active').querySelector('input')!);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(writes(calls)).toHaveLength(1));
    expect(writes(calls)[0]!.url).toBe('/api/admin/teams/3');
    expect(writes(calls)[0]!.body).toMatchObject({
      team_name: 'Cardio Lab',
      is_active: false,
      subscription_starts: '2025-01-01T00:00:00.000Z',
      subscription_ends: '2026-06-30T00:00:00.000Z',
      max_trials: 5,
      monthly_rate_per_participant: 2.5,
      hidden_fields: ['email'],
      allowed_brands: ['Fitbit'],
      supported_device_ids: [1],
      notes: null,
    });
  });

  it('shows the read-only database tables on the second tab, paged on the server', async () => {
    const api = await open();
    fireEvent.click(screen.getByRole('tab', { name: 'Database tables' }));
    const table = await screen.findByTestId('sys-admin-panel-teams', {}, { timeout: 60_000 });
    expect(await within(table).findByText('Heart Institute')).toBeTruthy();
    expect(within(table).getByText('Team Table')).toBeTruthy();
    expect(screen.getByTestId('sys-admin-total-teams').textContent).toBe('1 row');
    // The row-number column.
    expect(within(table).getAllByRole('row')[1]!.textContent).toMatch(/^1/);
    const request = api.calls.find((call) => call.url.startsWith('/api/sysAdminTeamsData'))!;
    expect(request.url).toBe('/api/sysAdminTeamsData?pageIndex=0&pageSize=50');
  });
});
