import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { METRICS_MESSAGES } from '@trialpulse/shared';
import { baseHandlers, errorBody, makeUser, mockApi } from '@/testing/mock-api';
import { renderApp } from '@/testing/render-app';

const TEAMS = [
  { team_id: 3, team_name: 'Cardio Lab' },
  { team_id: 4, team_name: 'Empty Lab' },
];
const DEVICE = {
  id: 8,
  team_id: 3,
  team_name: 'Cardio Lab',
  global_device_catalog_id: 2,
  device_name: 'Fitbit Sense',
  device_type: 'TRACKER',
  is_active: true,
  notes: null,
};
const metric = (key: string, name: string) => ({
  id: key.length,
  metric_key: key,
  metric_name: name,
  units: 'u',
  device_type: 'TRACKER',
  category: 'activity',
  description: '',
  available: true,
  default_retention_days: 30,
});

async function open(overrides: Parameters<typeof mockApi>[0] = {}) {
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'Sys_Admin' }) }),
    'GET /api/sysAdminTeamsData': { body: TEAMS },
    'GET /api/sysAdminTeamSupportedDevicesData': (call) => ({
      body: call.url.includes('team_id=3') ? [DEVICE] : [],
    }),
    'GET /api/deviceSettings/enhanced/deviceSettings/3/8': {
      body: [
        {
          id: 1,
          metric_key: 'steps',
          metric_name: 'Steps',
          metric_units: 'u',
          is_enabled: true,
          retention_days: 30,
        },
      ],
    },
    'GET /api/deviceSettings/enhanced/availableMetrics/3/8/TRACKER': {
      body: [metric('steps', 'Steps'), metric('floors', 'Floors')],
    },
    ...overrides,
  });
  renderApp('/DeviceMetricsManager');
  await screen.findByTestId('instructions-panel', {}, { timeout: 60_000 });
  return api;
}

async function choose(select: string, option: RegExp) {
  await waitFor(() => expect(screen.getByTestId(select).getAttribute('aria-disabled')).toBeNull());
  fireEvent.mouseDown(screen.getByTestId(select));
  fireEvent.click(await screen.findByRole('option', { name: option }));
}

describe('Device Metrics Manager (/DeviceMetricsManager)', () => {
  it('says when a team has no devices', async () => {
    await open();
    await choose('team-select', /^Empty Lab \(ID: 4\)/);
    expect(await screen.findByTestId('no-devices')).toBeTruthy();
    expect(screen.getByTestId('no-devices').textContent).toBe(METRICS_MESSAGES.noDevicesForTeam);
  });

  it('sends the whole list on save and shows "Failed to save selections: {reason}"', async () => {
    const api = await open({
      'PUT /api/deviceSettings/3/8': {
        status: 400,
        body: errorBody('This metric is not available for this device.', true, 'VALIDATION_ERROR'),
      },
    });
    await choose('team-select', /^Cardio Lab \(ID: 3\)/);
    await choose('device-select', /^Fitbit Sense \(Catalog ID: 2\)/);
    fireEvent.click((await screen.findByTestId('available-check-floors')).querySelector('input')!);
    expect(screen.getByTestId('unsaved-counts').textContent).toBe('Unsaved changes: 1 new');
    fireEvent.click(screen.getByTestId('save-changes'));
    expect((await screen.findByTestId('metrics-banner')).textContent).toBe(
      'Failed to save selections: This metric is not available for this device.',
    );
    const put = api.calls.find((call) => call.method === 'PUT')!;
    expect(put.body).toEqual({
      settings: [
        {
          metric_key: 'steps',
          metric_name: 'Steps',
          metric_units: 'u',
          is_enabled: true,
          retention_days: 30,
        },
        {
          metric_key: 'floors',
          metric_name: 'Floors',
          metric_units: 'u',
          is_enabled: true,
          retention_days: 30,
        },
      ],
    });
  });

  it('shows "Failed to fetch teams: {reason}"', async () => {
    await open({
      'GET /api/sysAdminTeamsData': { status: 500, body: errorBody('boom', false, 'INTERNAL') },
    });
    expect((await screen.findByTestId('metrics-banner')).textContent).toBe(
      `Failed to fetch teams: ${METRICS_MESSAGES.unknownError}`,
    );
  });
});
