import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { DEVICE_MESSAGES, type DeviceConnection } from '@trialpulse/shared';
import { errorBody, type RecordedCall } from '@/testing/mock-api';
import { writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';
import { connection, mockDevicesApi, type Handlers } from '../testing/device-fixtures';
import { formatDateTime } from '../utils/device-labels';

const AUTHORIZED_AT = '2025-03-01T09:30:00.000Z';
const EXPIRES_AT = '2025-03-02T09:30:00.000Z';
const REFRESHED_AT = '2025-03-01T17:00:00.000Z';

const linked = (id: number, brand: 'Fitbit' | 'Omron', overrides: Partial<DeviceConnection> = {}) =>
  connection(id, brand, {
    status: 'authorized',
    upstream: brand === 'Fitbit' ? 'google-health' : 'omron',
    authorizationDate: AUTHORIZED_AT,
    tokenExpiresAt: EXPIRES_AT,
    lastRefreshedAt: REFRESHED_AT,
    ...overrides,
  });

async function openTokens(path: string, role: string, overrides: Handlers = {}) {
  const api = mockDevicesApi(role, overrides);
  const app = renderApp(path);
  return { ...api, ...app };
}

const row = (id: number) =>
  screen.findByTestId(`device-connection-row-${id}`, {}, { timeout: 60_000 });

const headers = () =>
  Array.from(document.querySelectorAll('thead th')).map((cell) => cell.textContent?.trim() ?? '');

const reads = (calls: RecordedCall[], url: string) =>
  calls.filter((call) => call.url === url).length;

describe('/FitbitManageParticipantToken', () => {
  it('lists the team connections with upstream, dates and expiry', async () => {
    await openTokens('/FitbitManageParticipantToken', 'Admin', {
      'GET /api/deviceConnections/fitbit': {
        body: {
          connections: [
            linked(1, 'Fitbit'),
            linked(2, 'Fitbit', { upstream: 'fitbit-legacy', status: 'needs_reconsent' }),
          ],
        },
      },
    });
    const first = await row(1);
    for (const text of [
      'CARD-001',
      'CARD-01',
      'Authorized',
      'Google Health API',
      formatDateTime(AUTHORIZED_AT),
      formatDateTime(EXPIRES_AT),
      formatDateTime(REFRESHED_AT),
    ]) {
      expect(within(first).getByText(text)).toBeTruthy();
    }
    const second = await row(2);
    expect(within(second).getByText('Needs re-consent')).toBeTruthy();
    expect(within(second).getByText('Fitbit Web API (legacy)')).toBeTruthy();
    expect(
      (within(second).getByRole('button', { name: 'Refresh CARD-002' }) as HTMLButtonElement)
        .disabled,
    ).toBe(true);
    for (const header of [
      'Participant Code',
      'Trial Number',
      'Status',
      'Upstream',
      'Authorization Date',
      'Token Expiry',
      'Last Refresh',
    ]) {
      expect(headers().some((text) => text.startsWith(header))).toBe(true);
    }
  });

  it('refreshes a row and reads the list again', async () => {
    const { calls } = await openTokens('/FitbitManageParticipantToken', 'Admin', {
      'GET /api/deviceConnections/fitbit': { body: { connections: [linked(1, 'Fitbit')] } },
      'POST /api/fitbitRefreshToken': { body: { code: 200, message: 'ok' } },
    });
    fireEvent.click(within(await row(1)).getByRole('button', { name: 'Refresh CARD-001' }));
    expect((await screen.findByTestId('app-toast')).textContent).toContain(
      DEVICE_MESSAGES.refreshed,
    );
    await waitFor(() => expect(reads(calls, '/api/deviceConnections/fitbit')).toBe(2));
    expect(writes(calls).map((call) => [call.url, call.body])).toEqual([
      ['/api/fitbitRefreshToken', { id: 1 }],
    ]);
  });

  it('shows the spec text when a refresh fails', async () => {
    await openTokens('/FitbitManageParticipantToken', 'Sys_Admin', {
      'GET /api/deviceConnections/fitbit': { body: { connections: [linked(1, 'Fitbit')] } },
      'POST /api/fitbitRefreshToken': { status: 500, body: errorBody('boom', false) },
    });
    fireEvent.click(within(await row(1)).getByRole('button', { name: 'Refresh CARD-001' }));
    expect((await screen.findByTestId('device-tokens-error')).textContent).toBe(
      DEVICE_MESSAGES.refreshFailed,
    );
  });

  it('revokes a row after confirming and shows the list read again', async () => {
    let status: DeviceConnection['status'] = 'authorized';
    const { calls } = await openTokens('/FitbitManageParticipantToken', 'Admin', {
      'GET /api/deviceConnections/fitbit': () => ({
        body: { connections: [linked(1, 'Fitbit', { status })] },
      }),
      'GET /api/revokeAccessToken/1': () => {
        status = 'revoked';
        return { body: { code: 200, message: 'revoked' } };
      },
    });
    fireEvent.click(within(await row(1)).getByRole('button', { name: 'Revoke CARD-001' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke Fitbit access?' });
    expect(within(dialog).getByText('CARD-001')).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }));

    await waitFor(() =>
      expect(
        within(screen.getByTestId('device-connection-row-1')).getByText('Revoked'),
      ).toBeTruthy(),
    );
    expect(screen.queryByRole('dialog')).toBeNull();
    const revoke = calls.find((call) => call.url === '/api/revokeAccessToken/1');
    expect(revoke?.headers.get('x-csrf-token')).toBe('csrf-1');
  });

  it('is closed to a User', async () => {
    const { router } = await openTokens('/FitbitManageParticipantToken', 'User');
    await waitFor(() => expect(router.state.location.pathname).toBe('/not-authorized'), {
      timeout: 60_000,
    });
  });
});

describe('/OmronManageParticipantToken', () => {
  it('lists Omron connections without an upstream column and revokes by POST', async () => {
    const { calls } = await openTokens('/OmronManageParticipantToken', 'Admin', {
      'GET /api/deviceConnections/omron': { body: { connections: [linked(2, 'Omron')] } },
      'POST /api/omronRevokeToken': { status: 500, body: errorBody('boom', false) },
    });
    await row(2);
    expect(headers().some((text) => text.startsWith('Upstream'))).toBe(false);
    fireEvent.click(within(await row(2)).getByRole('button', { name: 'Revoke CARD-002' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke Omron access?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    expect((await within(dialog).findByTestId('revoke-device-error')).textContent).toBe(
      DEVICE_MESSAGES.revokeFailed,
    );
    expect(writes(calls).map((call) => [call.url, call.body])).toEqual([
      ['/api/omronRevokeToken', { id: 2 }],
    ]);
  });
});
