import { describe, expect, it } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/react';
import { METRICS_MESSAGES } from '@trialpulse/shared';
import { baseHandlers, errorBody, makeUser, mockApi } from '@/testing/mock-api';
import { renderApp } from '@/testing/render-app';

const DEVICES = [
  { team_supported_device_id: 5, device_name: 'Fitbit Sense', device_type: 'TRACKER' },
  { team_supported_device_id: 6, device_name: 'Omron Scale', device_type: 'OMRON_SCALE' },
];
const TRACKER_METRICS = [
  {
    id: 1,
    metric_key: 'steps',
    metric_name: 'Steps',
    units: 'steps',
    category: 'activity',
    description: 'Daily steps',
  },
  {
    id: 2,
    metric_key: 'spo2',
    metric_name: 'SpO2',
    units: '%',
    category: 'healthMetrics',
    description: 'Oxygen',
  },
];

async function open(overrides: Parameters<typeof mockApi>[0] = {}) {
  const user = makeUser({ role: 'Admin' });
  const base = `/api/dataStorageService/team/${user.teamId}`;
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-in', user }),
    [`GET ${base}/devices`]: { body: DEVICES },
    [`GET ${base}/retention`]: { body: { retention_days: 400 } },
    'GET /api/dataStorageService/metrics/TRACKER': { body: TRACKER_METRICS },
    'GET /api/dataStorageService/metrics/OMRON_SCALE': { body: [] },
    [`GET ${base}/device/TRACKER/selections`]: {
      body: [{ metric_key: 'steps', is_enabled: true }],
    },
    ...overrides,
  });
  renderApp('/TeamDataRetention');
  await screen.findByTestId('team-retention', {}, { timeout: 60_000 });
  return { api, base };
}

async function chooseDevice(name: string) {
  fireEvent.mouseDown(screen.getByTestId('retention-device-select'));
  fireEvent.click(await screen.findByRole('option', { name: new RegExp(`^${name}`) }));
}

describe('Data Storage & Retention Settings (/TeamDataRetention)', () => {
  it('shows the retention in days and years and lists only metrics the administrator added', async () => {
    await open();
    expect((await screen.findByText(/^Retention: /)).textContent).toBe(
      'Retention: 400 days (1.1 years)',
    );
    await chooseDevice('Fitbit Sense');
    await screen.findByTestId('retention-row-steps');
    expect(screen.queryByTestId('retention-row-spo2')).toBeNull();
    expect(screen.getByTestId('enabled-count').textContent).toBe('1 of 1 metrics enabled');
  });

  it('treats a 404 on selections as an empty list and says nothing was added', async () => {
    await open({
      'GET /api/dataStorageService/team/1/device/TRACKER/selections': {
        status: 404,
        body: errorBody('Device not found.', true, 'NOT_FOUND'),
      },
    });
    await chooseDevice('Fitbit Sense');
    expect(await screen.findByText(METRICS_MESSAGES.noMetricsAdded)).toBeTruthy();
    expect(screen.queryByTestId('retention-banner')).toBeNull();
  });

  it('says when a device type has no metrics, and shows the spec error texts', async () => {
    await open({
      'GET /api/dataStorageService/team/1/retention': {
        status: 500,
        body: errorBody('boom', false, 'INTERNAL'),
      },
    });
    await chooseDevice('Omron Scale');
    expect(await screen.findByText(METRICS_MESSAGES.noMetricsForType)).toBeTruthy();
    const banner = await screen.findByTestId('retention-banner');
    expect(within(banner).getByText(/^Failed to fetch retention period: /)).toBeTruthy();
  });
});
