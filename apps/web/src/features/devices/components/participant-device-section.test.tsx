import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { DEVICE_MESSAGES, deviceListEntryOf, type DeviceConnection } from '@trialpulse/shared';
import { errorBody } from '@/testing/mock-api';
import { writes } from '@/testing/form';
import { renderApp, renderWithProviders } from '@/testing/render-app';
import {
  TRIAL,
  brandsAllowed,
  connection,
  device,
  mockDevicesApi,
  participant,
  type Handlers,
} from '../testing/device-fixtures';
import { formatDateTime } from '../utils/device-labels';
import { ParticipantDeviceSection } from './participant-device-section';

const P2 = participant(2);
const AUTHORIZED_AT = '2025-03-01T09:30:00.000Z';

const connections = (...list: DeviceConnection[]) => ({ body: { connections: list } });

const LINKED = connections(
  connection(2, 'Fitbit', {
    status: 'authorized',
    upstream: 'google-health',
    authorizationDate: AUTHORIZED_AT,
  }),
  connection(2, 'Omron', { status: 'authorized', upstream: 'omron' }),
);

/** The device list call's answer: the spec names the device's kind `type` (device spec §7). */
const FITBIT_DEVICES = {
  body: { devices: [deviceListEntryOf(device({ deviceVersion: 'Charge 6', batteryLevel: 60 }))] },
};

async function openParticipant(role: string, overrides: Handlers = {}) {
  const api = mockDevicesApi(role, {
    'GET /api/participantConnections/2': LINKED,
    'GET /api/fitbitDevices/2': FITBIT_DEVICES,
    ...overrides,
  });
  const app = renderApp('/Participant', { state: { participant: P2, trial: TRIAL } });
  await screen.findByTestId('participant-page', {}, { timeout: 60_000 });
  return { ...api, ...app };
}

const section = (brand: string) => screen.findByTestId(`device-connection-${brand}`);

const writesTo = (calls: { method: string; url: string; body: unknown }[]) =>
  writes(calls).map((call) => [call.method, call.url, call.body]);

describe('device sections on /Participant', () => {
  it('shows status, upstream, authorisation date and devices with their battery', async () => {
    await openParticipant('User');
    const fitbit = await section('Fitbit');
    expect(within(fitbit).getByTestId('device-status-label-Fitbit').textContent).toBe('Authorized');
    expect(within(fitbit).getByTestId('device-upstream-Fitbit').textContent).toBe(
      'Data source: Google Health API',
    );
    expect(within(fitbit).getByTestId('device-authorization-date-Fitbit').textContent).toBe(
      `Authorized on: ${formatDateTime(AUTHORIZED_AT)}`,
    );
    expect(await within(fitbit).findByText('Charge 6')).toBeTruthy();
    expect(within(fitbit).getByRole('img', { name: 'Battery medium' })).toBeTruthy();
    const omron = await section('Omron');
    expect(within(omron).getByTestId('device-status-label-Omron').textContent).toBe('Authorized');
    expect(within(omron).queryByTestId('device-upstream-Fitbit')).toBeNull();
  });

  it('refreshes the token and says so', async () => {
    const { calls } = await openParticipant('User', {
      'POST /api/fitbitRefreshToken': { body: { code: 200, message: 'ok' } },
    });
    const fitbit = await section('Fitbit');
    fireEvent.click(within(fitbit).getByRole('button', { name: 'Refresh token' }));
    expect((await screen.findByTestId('app-toast')).textContent).toContain(
      DEVICE_MESSAGES.refreshed,
    );
    expect(writesTo(calls)).toEqual([['POST', '/api/fitbitRefreshToken', { id: 2 }]]);
  });

  it('shows the spec text when the refresh fails', async () => {
    await openParticipant('User', {
      'POST /api/omronRefreshToken': { status: 502, body: errorBody('upstream', false) },
    });
    const omron = await section('Omron');
    fireEvent.click(within(omron).getByRole('button', { name: 'Refresh token' }));
    expect((await within(omron).findByTestId('device-action-error-Omron')).textContent).toBe(
      DEVICE_MESSAGES.refreshFailed,
    );
  });

  it('revokes Fitbit after confirming (a GET with the CSRF header) and returns to the trial page', async () => {
    const { calls, router } = await openParticipant('Admin', {
      'GET /api/revokeAccessToken/2': { body: { code: 200, message: 'revoked' } },
    });
    const fitbit = await section('Fitbit');
    fireEvent.click(within(fitbit).getByRole('button', { name: 'Revoke access' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke Fitbit access?' });
    expect(calls.some((call) => call.url === '/api/revokeAccessToken/2')).toBe(false);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }));

    await screen.findByTestId('trial-page');
    expect(router.state.location.pathname).toBe('/TrialPage');
    expect(router.state.location.state).toEqual({ trial: TRIAL });
    const revoke = calls.find((call) => call.url === '/api/revokeAccessToken/2');
    expect(revoke?.method).toBe('GET');
    expect(revoke?.headers.get('x-csrf-token')).toBe('csrf-1');
  });

  it('keeps the dialog open with the spec text when the revoke fails', async () => {
    const { calls, router } = await openParticipant('User', {
      'POST /api/omronRevokeToken': { status: 500, body: errorBody('boom', false) },
    });
    const omron = await section('Omron');
    fireEvent.click(within(omron).getByRole('button', { name: 'Revoke access' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke Omron access?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    expect((await within(dialog).findByTestId('revoke-device-error')).textContent).toBe(
      DEVICE_MESSAGES.revokeFailed,
    );
    expect(router.state.location.pathname).toBe('/Participant');
    expect(writesTo(calls)).toEqual([['POST', '/api/omronRevokeToken', { id: 2 }]]);
  });

  it('offers a new consent link for a legacy Fitbit connection and sends it', async () => {
    const { calls } = await openParticipant('User', {
      'GET /api/participantConnections/2': connections(
        connection(2, 'Fitbit', { status: 'authorized', upstream: 'fitbit-legacy' }),
        connection(2, 'Omron'),
      ),
      'POST /api/participantConsentEmail': { body: { message: 'Consent link sent.' } },
    });
    const fitbit = await section('Fitbit');
    expect(within(fitbit).getByTestId('device-upstream-Fitbit').textContent).toBe(
      'Data source: Fitbit Web API (legacy)',
    );
    fireEvent.click(within(fitbit).getByRole('button', { name: 'Send new consent link' }));
    expect((await screen.findByTestId('app-toast')).textContent).toContain('Consent link sent.');
    expect(writesTo(calls)).toEqual([
      ['POST', '/api/participantConsentEmail', { participantId: 2, brand: 'Fitbit' }],
    ]);
    const omron = await section('Omron');
    expect(within(omron).getByRole('button', { name: 'Send consent link' })).toBeTruthy();
    expect(within(omron).queryByRole('button', { name: 'Refresh token' })).toBeNull();
  });

  it('sends the browser to Omron when authorising with the participant present', async () => {
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, assign });
    const { calls } = await openParticipant('User', {
      'GET /api/participantConnections/2': connections(
        connection(2, 'Fitbit'),
        connection(2, 'Omron'),
      ),
      'POST /api/deviceAuthorization': {
        body: { authorizeUrl: 'https://omron.example/authorize?state=abc' },
      },
    });
    const omron = await section('Omron');
    fireEvent.click(
      within(omron).getByRole('button', { name: 'Authorize with participant present' }),
    );
    await waitFor(() =>
      expect(assign).toHaveBeenCalledWith('https://omron.example/authorize?state=abc'),
    );
    expect(writesTo(calls)).toEqual([
      ['POST', '/api/deviceAuthorization', { participantId: 2, brand: 'Omron' }],
    ]);
  });

  it.each([
    ['Fitbit', '/FitbitParticipantConsent'],
    ['Dexcom', '/DexcomParticipantConsent'],
  ])('opens the %s consent page with the participant present', async (brand, path) => {
    const { router } = await openParticipant('User', {
      'GET /api/teamAllowedDevices/1': brandsAllowed('Fitbit', 'Omron', 'Dexcom'),
      'GET /api/participantConnections/2': connections(
        connection(2, 'Fitbit'),
        connection(2, 'Omron'),
        connection(2, 'Dexcom', { status: 'revoked' }),
      ),
    });
    const brandSection = await section(brand);
    fireEvent.click(
      within(brandSection).getByRole('button', { name: 'Authorize with participant present' }),
    );
    await waitFor(() => expect(router.state.location.pathname).toBe(path));
    expect(router.state.location.state).toEqual({ participant: P2, trial: TRIAL });
  });

  it("reads the device list's `type` field (device spec §7): a device without a version is named by its type", async () => {
    await openParticipant('User', {
      'GET /api/fitbitDevices/2': {
        body: {
          devices: [
            {
              device: 'Fitbit',
              deviceVersion: null,
              type: 'SCALE',
              batteryLevel: 40,
              battery: 'Medium',
              lastSyncTime: '2025-03-01T10:00:00.000Z',
              hasError: false,
              errorType: null,
            },
          ],
        },
      },
    });
    const fitbit = await section('Fitbit');
    expect(await within(fitbit).findByText('SCALE')).toBeTruthy();
  });

  it('shows Dexcom devices without a battery icon when they report no level', async () => {
    await openParticipant('User', {
      'GET /api/teamAllowedDevices/1': brandsAllowed('Dexcom'),
      'GET /api/participantConnections/2': connections(
        connection(2, 'Dexcom', { status: 'authorized', upstream: 'dexcom' }),
      ),
      'GET /api/dexcomDevices/2': {
        body: {
          devices: [
            deviceListEntryOf(
              device({
                device: 'Dexcom',
                deviceVersion: 'G7',
                deviceType: null,
                batteryLevel: null,
                battery: null,
              }),
            ),
          ],
        },
      },
    });
    const dexcom = await section('Dexcom');
    expect(await within(dexcom).findByText('G7')).toBeTruthy();
    expect(within(dexcom).queryByRole('img')).toBeNull();
    expect(within(dexcom).queryByRole('button', { name: /consent link/ })).toBeNull();
    expect(within(dexcom).getByRole('button', { name: 'Refresh token' })).toBeTruthy();
  });

  it('shows a Viewer the status but no actions', async () => {
    mockDevicesApi('Viewer', { 'GET /api/participantConnections/2': LINKED });
    renderWithProviders(
      <ParticipantDeviceSection participant={P2} trial={TRIAL} brand="Omron" onRevoked={vi.fn()} />,
    );
    const omron = await section('Omron');
    expect(within(omron).getByTestId('device-status-label-Omron').textContent).toBe('Authorized');
    // The session loads after the first render: give the role time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(within(omron).queryAllByRole('button')).toHaveLength(0);
  });
});
