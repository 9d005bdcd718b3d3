import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { DEVICE_MESSAGES, findRoute, type DeviceBrandName } from '@trialpulse/shared';
import { freezeDateAt } from '@/testing/clock';
import { errorBody } from '@/testing/mock-api';
import { renderApp } from '@/testing/render-app';
import {
  FOUND,
  TRIAL,
  brandsAllowed,
  device,
  deviceStatusAnswer,
  errorEntry,
  mockDevicesApi,
  participant,
  statusIdsOf,
  type Handlers,
  type StatusByParticipant,
} from '../testing/device-fixtures';
import { DEVICE_ERROR_TEXTS } from '../utils/device-labels';

/** Participant 1: two Fitbit devices and Omron; participant 2: Fitbit needs re-consent. */
const HEALTHY_STATUS: StatusByParticipant = {
  1: {
    Fitbit: {
      auth: FOUND,
      devices: [
        device({ deviceVersion: 'Charge 6', batteryLevel: 95 }),
        device({ deviceVersion: 'Aria Air', deviceType: 'SCALE', batteryLevel: 30 }),
      ],
    },
    Omron: { auth: { ...FOUND, upstream: 'omron' } },
  },
  2: {
    Fitbit: {
      auth: { message: 'not found', status: 'needs_reconsent', upstream: 'fitbit-legacy' },
    },
  },
};
const HEALTHY: Handlers = { 'GET /api/deviceStatus': deviceStatusAnswer(HEALTHY_STATUS) };

/** Participant 2's Fitbit device list failed at the provider (rate limit). */
const FAILING: Handlers = {
  'GET /api/deviceStatus': deviceStatusAnswer({
    ...HEALTHY_STATUS,
    2: { Fitbit: { auth: FOUND, devices: [errorEntry('rate_limit')] } },
  }),
};

async function openTrialPage(role: string, overrides: Handlers = {}) {
  const api = mockDevicesApi(role, overrides);
  const app = renderApp('/TrialPage', { state: { trial: TRIAL } });
  await screen.findByTestId('participant-row-2', {}, { timeout: 60_000 });
  return { ...api, ...app };
}

const brandCell = (id: number, brand: string) => screen.getByTestId(`device-status-${id}-${brand}`);

const headers = () =>
  Array.from(document.querySelectorAll('thead th')).map((cell) => cell.textContent?.trim() ?? '');

beforeEach(() => sessionStorage.clear());
afterEach(() => {
  vi.useRealTimers();
});

describe('device status column on /TrialPage', () => {
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

  it('lists each allowed brand with a placeholder until the status answers, so the rows keep their height', async () => {
    // 'Last data today' compares the reading with the clock's day: one fixed day, not the
    // real one (which may change between the answer and the badge).
    freezeDateAt();
    let answer: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const reply = deviceStatusAnswer(HEALTHY_STATUS);
    const days = Array.from(
      { length: 14 },
      (_, day) => `2026-11-${String(day + 1).padStart(2, '0')}`,
    );
    await openTrialPage('User', {
      'GET /api/deviceStatus': async (call) => {
        await held;
        return reply(call);
      },
      'GET /api/deviceSync/trial/11/lastData': async () => {
        await held;
        return {
          body: { participants: [{ participantId: 1, latestReading: new Date().toISOString() }] },
        };
      },
      'GET /api/trials/11/completeness/strips': async () => {
        await held;
        return {
          body: {
            days,
            strips: [1, 2].map((participantId) => ({
              participantId,
              states: days.map(() => 'valid'),
              warnings: [],
            })),
          },
        };
      },
    });

    // The last-data badge and the 14-day strip hold their places too (test ids that do not
    // start like the loaded ones', which tests select by prefix).
    await screen.findByTestId('pending-last-data-1');
    await screen.findByTestId('pending-completeness-strip-1');
    const pending = await screen.findByTestId('pending-device-status-1');
    expect(within(pending).getByText('Fitbit')).toBeTruthy();
    expect(within(pending).getByText('Omron')).toBeTruthy();
    expect(within(pending).getByLabelText('Checking Fitbit')).toBeTruthy();
    expect(within(pending).queryByText('Dexcom')).toBeNull();
    expect(screen.queryByTestId('device-status-1-Fitbit')).toBeNull();

    answer();
    await screen.findByTestId('device-status-1-Fitbit');
    expect(screen.queryByTestId('pending-device-status-1')).toBeNull();
    expect(within(brandCell(1, 'Fitbit')).getByText('Charge 6')).toBeTruthy();
    expect((await screen.findByTestId('last-data-1')).textContent).toBe('Last data today');
    await screen.findByTestId('completeness-strip-1');
    expect(screen.queryByTestId('pending-last-data-1')).toBeNull();
    expect(screen.queryByTestId('pending-completeness-strip-1')).toBeNull();
  });

  it('checks Dexcom only when the team allows it', async () => {
    const { calls } = await openTrialPage('User', {
      'GET /api/teamAllowedDevices/1': brandsAllowed('Fitbit', 'Omron', 'Dexcom'),
      'GET /api/deviceStatus': deviceStatusAnswer(
        {
          ...HEALTHY_STATUS,
          1: { ...HEALTHY_STATUS[1], Dexcom: { auth: { ...FOUND, upstream: 'dexcom' } } },
        },
        ['Fitbit', 'Omron', 'Dexcom'],
      ),
    });
    await screen.findByTestId('device-status-2-Dexcom');
    expect(within(brandCell(1, 'Dexcom')).getByText('Authorized')).toBeTruthy();
    expect(calls.filter((call) => call.url.includes('/deviceStatus'))).toHaveLength(1);
  });

  it('shows failed checks as error entries under the banner, participants still listed', async () => {
    await openTrialPage('Admin', FAILING);
    expect((await screen.findByTestId('device-status-banner')).textContent).toBe(
      DEVICE_MESSAGES.someDeviceInfoFailed,
    );
    await screen.findByTestId('device-status-2-Omron');
    expect(within(brandCell(2, 'Fitbit')).getByText(/Too many requests/)).toBeTruthy();
    expect(screen.getByTestId('participant-row-1')).toBeTruthy();
    // Only Sys_Admin gets View Participant Data.
    expect(screen.queryByRole('button', { name: 'View Participant Data' })).toBeNull();
  });

  it('shows a failed status call as an error entry per brand', async () => {
    await openTrialPage('Admin', {
      'GET /api/deviceStatus': { status: 500, body: errorBody('boom', false) },
    });
    expect((await screen.findByTestId('device-status-banner')).textContent).toBe(
      DEVICE_MESSAGES.someDeviceInfoFailed,
    );
    await screen.findByTestId('device-status-2-Omron');
    expect(
      within(brandCell(2, 'Omron')).getByText(`Omron: ${DEVICE_ERROR_TEXTS.auth_check_failed}`),
    ).toBeTruthy();
  });

  it('a trial of 500 participants: one status request for the visible page, another for the next page', async () => {
    const many = Array.from({ length: 500 }, (_, index) => participant(index + 1));
    const everyone: StatusByParticipant = Object.fromEntries(
      many.map((p) => [p.id, { Fitbit: { auth: FOUND, devices: [device()] } }]),
    );
    const { calls } = await openTrialPage('User', {
      'GET /api/trialParticipants/11': { body: many },
      'GET /api/deviceStatus': deviceStatusAnswer(everyone),
    });
    await screen.findByTestId('device-status-10-Fitbit');
    const statusCalls = () => calls.filter((call) => call.url.includes('/deviceStatus'));
    expect(statusCalls()).toHaveLength(1);
    expect(statusIdsOf(statusCalls()[0]!)).toEqual(many.slice(0, 10).map((p) => p.id));
    expect(
      calls.some((call) => /IsParticipantAuth|\/(fitbit|omron|dexcom)Devices\//.test(call.url)),
    ).toBe(false);

    fireEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
    await screen.findByTestId('device-status-20-Fitbit');
    expect(statusCalls()).toHaveLength(2);
    expect(statusIdsOf(statusCalls()[1]!)).toEqual(many.slice(10, 20).map((p) => p.id));
  });

  it('gives Sys_Admin View Participant Data on errored entries, opening the participant', async () => {
    const { router } = await openTrialPage('Sys_Admin', FAILING);
    const fitbit2 = await screen.findByTestId('device-status-2-Fitbit');
    const button = await within(fitbit2).findByRole('button', { name: 'View Participant Data' });
    expect(screen.getAllByRole('button', { name: 'View Participant Data' })).toHaveLength(1);
    fireEvent.click(button);
    await waitFor(() => expect(router.state.location.pathname).toBe('/ParticipantDataPage'));
    expect(router.state.location.state).toEqual({
      participant: participant(2),
      trial: TRIAL,
      brand: 'Fitbit',
    });
  });

  it.each<[DeviceBrandName, string]>([
    ['Fitbit', 'fitbit'],
    ['Omron', 'omron'],
  ])(
    'View Participant Data on an errored %s entry opens a data page of the route table that shows that brand',
    async (brand, tab) => {
      const { router } = await openTrialPage('Sys_Admin', {
        'GET /api/deviceStatus': deviceStatusAnswer({
          2: {
            Fitbit: { auth: FOUND, devices: [errorEntry('rate_limit')] },
            Omron: { auth: { ...FOUND, upstream: 'omron' }, devices: [errorEntry('auth_error')] },
          },
        }),
        'GET /api/participantOverview/2': {
          body: {
            participantId: 2,
            brands: [
              { brand: 'Fitbit', metrics: [] },
              { brand: 'Omron', metrics: [] },
            ],
          },
        },
      });
      const cell = await screen.findByTestId(`device-status-2-${brand}`);
      fireEvent.click(await within(cell).findByRole('button', { name: 'View Participant Data' }));
      await waitFor(() => expect(router.state.location.pathname).not.toBe('/TrialPage'));
      // A path of the shared route table, open to whoever may view data.
      expect(findRoute(router.state.location.pathname)?.action).toBe('data.view');
      expect(router.state.location.state).toEqual({
        participant: participant(2),
        trial: TRIAL,
        brand,
      });
      // A built page (not the placeholder) open on that brand's tab.
      const page = await screen.findByTestId('participant-data-page', {}, { timeout: 60_000 });
      expect(within(page).getByText('Participant data: CARD-002')).toBeTruthy();
      const brandTab = await within(page).findByTestId(`participant-data-tab-${tab}`);
      expect(brandTab.getAttribute('aria-selected')).toBe('true');
    },
  );

  it('leaves the column out for a Viewer and checks nothing', async () => {
    const { calls } = await openTrialPage('Viewer', HEALTHY);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(headers().some((text) => text.startsWith('Device Status'))).toBe(false);
    expect(screen.queryByTestId('participant-device-status-1')).toBeNull();
    expect(calls.some((call) => /IsParticipantAuth|Devices\/|deviceStatus/.test(call.url))).toBe(
      false,
    );
  });
});
