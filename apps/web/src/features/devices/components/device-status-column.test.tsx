import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { DEVICE_MESSAGES } from '@trialpulse/shared';
import { errorBody } from '@/testing/mock-api';
import { renderApp } from '@/testing/render-app';
import {
  FOUND,
  NOT_FOUND,
  TRIAL,
  brandsAllowed,
  device,
  errorEntry,
  mockDevicesApi,
  participant,
  type Handlers,
} from '../testing/device-fixtures';
import { DEVICE_ERROR_TEXTS } from '../utils/device-labels';

/** Participant 1: two Fitbit devices and Omron; participant 2: Fitbit needs re-consent. */
const HEALTHY: Handlers = {
  'GET /api/fitbitIsParticipantAuth/1': { body: FOUND },
  'GET /api/fitbitDevices/1': {
    body: {
      devices: [
        device({ deviceVersion: 'Charge 6', batteryLevel: 95 }),
        device({ deviceVersion: 'Aria Air', deviceType: 'SCALE', batteryLevel: 30 }),
      ],
    },
  },
  'GET /api/omronIsParticipantAuth/1': { body: { ...FOUND, upstream: 'omron' } },
  'GET /api/fitbitIsParticipantAuth/2': {
    body: { message: 'not found', status: 'needs_reconsent', upstream: 'fitbit-legacy' },
  },
  'GET /api/omronIsParticipantAuth/2': { body: NOT_FOUND },
};

/** Participant 2's Fitbit device list fails at the provider (rate limit). */
const FAILING: Handlers = {
  ...HEALTHY,
  'GET /api/fitbitIsParticipantAuth/2': { body: FOUND },
  'GET /api/fitbitDevices/2': { body: { devices: [errorEntry('rate_limit')] } },
};

async function openTrialPage(role: string, overrides: Handlers = {}) {
  const api = mockDevicesApi(role, overrides);
  const app = renderApp('/TrialPage', { state: { trial: TRIAL } });
  await screen.findByTestId('participant-row-2', {}, { timeout: 15_000 });
  return { ...api, ...app };
}

const brandCell = (id: number, brand: string) => screen.getByTestId(`device-status-${id}-${brand}`);

const headers = () =>
  Array.from(document.querySelectorAll('thead th')).map((cell) => cell.textContent?.trim() ?? '');

beforeEach(() => sessionStorage.clear());

describe('device status column on /TrialPage', { timeout: 20_000 }, () => {
  it('shows devices with their battery, re-consent and not-authorised per brand', async () => {
    await openTrialPage('User', HEALTHY);
    await screen.findByTestId('device-status-2-Omron');

    const fitbit1 = brandCell(1, 'Fitbit');
    expect(within(fitbit1).getByText('Charge 6')).toBeTruthy();
    expect(within(fitbit1).getByRole('img', { name: 'Battery high' })).toBeTruthy();
    expect(within(fitbit1).getByText('Aria Air')).toBeTruthy();
    expect(within(fitbit1).getByRole('img', { name: 'Battery low' })).toBeTruthy();
    expect(within(brandCell(1, 'Omron')).getByText('Authorized')).toBeTruthy();
    expect(within(brandCell(2, 'Fitbit')).getByText('Needs re-consent')).toBeTruthy();
    expect(within(brandCell(2, 'Omron')).getByText('Not authorized')).toBeTruthy();
    expect(headers().some((text) => text.startsWith('Device Status'))).toBe(true);
    expect(screen.queryByTestId('device-status-banner')).toBeNull();
  });

  it('checks Dexcom only when the team allows it', async () => {
    const { calls } = await openTrialPage('User', {
      ...HEALTHY,
      'GET /api/teamAllowedDevices/1': brandsAllowed('Fitbit', 'Omron', 'Dexcom'),
      'GET /api/dexcomIsParticipantAuth/1': { body: { ...FOUND, upstream: 'dexcom' } },
      'GET /api/dexcomIsParticipantAuth/2': { body: NOT_FOUND },
    });
    await screen.findByTestId('device-status-2-Dexcom');
    expect(within(brandCell(1, 'Dexcom')).getByText('Authorized')).toBeTruthy();
    expect(calls.filter((call) => call.url.includes('dexcomIsParticipantAuth'))).toHaveLength(2);
  });

  it('shows failed checks as error entries under the banner, participants still listed', async () => {
    await openTrialPage('Admin', {
      ...FAILING,
      'GET /api/omronIsParticipantAuth/2': { status: 500, body: errorBody('boom', false) },
    });
    expect((await screen.findByTestId('device-status-banner')).textContent).toBe(
      DEVICE_MESSAGES.someDeviceInfoFailed,
    );
    await screen.findByTestId('device-status-2-Omron');
    expect(within(brandCell(2, 'Fitbit')).getByText(/Too many requests/)).toBeTruthy();
    expect(
      within(brandCell(2, 'Omron')).getByText(`Omron: ${DEVICE_ERROR_TEXTS.auth_check_failed}`),
    ).toBeTruthy();
    expect(screen.getByTestId('participant-row-1')).toBeTruthy();
    // Only Sys_Admin gets View Participant Data.
    expect(screen.queryByRole('button', { name: 'View Participant Data' })).toBeNull();
  });

  it('gives Sys_Admin View Participant Data on errored entries, opening the participant', async () => {
    const { router } = await openTrialPage('Sys_Admin', FAILING);
    const fitbit2 = await screen.findByTestId('device-status-2-Fitbit');
    const button = await within(fitbit2).findByRole('button', { name: 'View Participant Data' });
    expect(screen.getAllByRole('button', { name: 'View Participant Data' })).toHaveLength(1);
    fireEvent.click(button);
    await waitFor(() => expect(router.state.location.pathname).toBe('/ParticipantDataPage'));
    expect(router.state.location.state).toEqual({ participant: participant(2), trial: TRIAL });
  });

  it('leaves the column out for a Viewer and checks nothing', async () => {
    const { calls } = await openTrialPage('Viewer', HEALTHY);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(headers().some((text) => text.startsWith('Device Status'))).toBe(false);
    expect(screen.queryByTestId('participant-device-status-1')).toBeNull();
    expect(calls.some((call) => /IsParticipantAuth|Devices\//.test(call.url))).toBe(false);
  });
});
