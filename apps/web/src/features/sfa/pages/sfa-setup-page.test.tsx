import { StrictMode } from 'react';
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { errorBody } from '@/testing/mock-api';
import { fieldErrors, fill, submit, writes } from '@/testing/form';
import { renderApp, renderWithProviders } from '@/testing/render-app';
import {
  ACCOUNT_LOCKED,
  CODE_CASES,
  CODE_INVALID,
  KEY,
  QR_IMAGE,
  callsTo,
  mockSfaApi,
} from '../testing/sfa-api';
import { SfaSetupPage } from './sfa-setup-page';

const SETUP = 'GET /api/auth/secondFactorSetup';
const INVALID_QR = 'Error: Invalid QR code received from server';
const INVALID_KEY = 'Error: Invalid SFA key received from server.';

async function open(handlers: Parameters<typeof mockSfaApi>[1] = () => ({})) {
  const api = mockSfaApi('SFAIsNotSet', (server) => ({
    [SETUP]: () => {
      server.status = 'SFAVerifyCodeNeeded';
      return { body: { qrImage: QR_IMAGE, key: KEY } };
    },
    'POST /api/auth/verifyTOTP': () => {
      server.status = 'signed-out';
      return {
        body: { success: true, message: 'The second factor is set up. Please log in again.' },
      };
    },
    ...handlers(server),
  }));
  const { router } = renderApp('/SFASetupPage');
  await screen.findByTestId('sfa-setup-page');
  return { ...api, router };
}

describe('second-factor setup page', () => {
  it('shows the QR image and the text key, fetched once, and follows the new status', async () => {
    const { calls } = await open();

    const qr = await screen.findByTestId('sfa-qr');
    expect(qr.getAttribute('src')).toBe(QR_IMAGE);
    expect(qr.getAttribute('alt')).toBe('QR code for your authenticator app');
    expect(screen.getByTestId('sfa-key').textContent).toBe(KEY);
    expect(screen.getByText(/Google Authenticator or Microsoft Authenticator/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Verify' })).toBeTruthy();
    expect(callsTo(calls, 'GET', '/api/auth/secondFactorSetup')).toHaveLength(1);
    // The session is asked again after the setup moved it to SFAVerifyCodeNeeded.
    await waitFor(() =>
      expect(callsTo(calls, 'GET', '/api/auth/session').length).toBeGreaterThanOrEqual(2),
    );
  });

  it('creates one secret under StrictMode', async () => {
    const { calls } = mockSfaApi('SFAIsNotSet', () => ({
      [SETUP]: { body: { qrImage: QR_IMAGE, key: KEY } },
    }));
    renderWithProviders(
      <StrictMode>
        <SfaSetupPage />
      </StrictMode>,
      { path: '/SFASetupPage' },
    );

    expect((await screen.findByTestId('sfa-key')).textContent).toBe(KEY);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(callsTo(calls, 'GET', '/api/auth/secondFactorSetup')).toHaveLength(1);
  });

  it.each([
    ['a QR image from a URL', { qrImage: 'https://evil.example/qr.png', key: KEY }, INVALID_QR],
    [
      'a QR that is no image',
      { qrImage: 'data:text/html;base64,PHNjcmlwdD4=', key: KEY },
      INVALID_QR,
    ],
    ['no QR image', { key: KEY }, INVALID_QR],
    ['no key', { qrImage: QR_IMAGE }, INVALID_KEY],
    ['an empty key', { qrImage: QR_IMAGE, key: '' }, INVALID_KEY],
    ['a key that is not base32', { qrImage: QR_IMAGE, key: 'not base32!' }, INVALID_KEY],
  ])('refuses %s with the spec message', async (_label, body, message) => {
    await open(() => ({ [SETUP]: { body } }));

    expect((await screen.findByTestId('sfa-setup-error')).textContent).toBe(message);
    expect(screen.queryByTestId('sfa-qr')).toBeNull();
    expect(screen.queryByTestId('sfa-key')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Verify' })).toBeNull();
  });

  it.each(CODE_CASES)('checks the code "%s" → %s and sends nothing', async (code, message) => {
    const { calls } = await open();
    await screen.findByTestId('sfa-key');

    fill('Authenticator code', code);
    submit('Verify');

    expect(await screen.findByText(message)).toBeTruthy();
    expect(fieldErrors()).toEqual([message]);
    expect(writes(calls)).toHaveLength(0);
  });

  it('offers a numeric one-time-code field', async () => {
    await open();
    const input = await screen.findByLabelText('Authenticator code');

    expect(input.getAttribute('inputmode')).toBe('numeric');
    expect(input.getAttribute('autocomplete')).toBe('one-time-code');
  });

  it('verifies the first code, then logs out to the login page with a message', async () => {
    const { calls, router } = await open();
    await screen.findByTestId('sfa-key');

    fill('Authenticator code', '123 456');
    submit('Verify');

    await waitFor(() => expect(router.state.location.pathname).toBe('/LoginPage'));
    const [verify] = callsTo(calls, 'POST', '/api/auth/verifyTOTP');
    expect(verify?.body).toEqual({ sfaToken: '123456' });
    expect(verify?.headers.get('x-csrf-token')).toBe('csrf-1');
    expect((await screen.findByTestId('login-notice')).textContent).toBe(
      'Your authenticator is set up. Please log in again.',
    );
  });

  it('shows a wrong code with the server text and keeps the form', async () => {
    await open(() => ({ 'POST /api/auth/verifyTOTP': CODE_INVALID }));
    await screen.findByTestId('sfa-key');

    fill('Authenticator code', '000000');
    submit('Verify');

    expect((await screen.findByTestId('sfa-error')).textContent).toBe(
      'The code is not correct. Please try again.',
    );
    expect(screen.getByRole('button', { name: 'Verify' }).hasAttribute('disabled')).toBe(false);
  });

  it('logs out with the lock message when the account gets locked', async () => {
    const { router } = await open(() => ({ 'POST /api/auth/verifyTOTP': ACCOUNT_LOCKED }));
    await screen.findByTestId('sfa-key');

    fill('Authenticator code', '000000');
    submit('Verify');

    await waitFor(() => expect(router.state.location.pathname).toBe('/LoginPage'));
    expect((await screen.findByTestId('login-notice')).textContent).toBe(
      'Account locked due to too many failed attempts',
    );
  });

  it('goes to the emailed-code page', async () => {
    const { router } = await open(() => ({
      'POST /api/auth/generateSendEmailTOTP': { body: { success: true, message: 'sent' } },
    }));

    fireEvent.click(screen.getByRole('button', { name: 'Send code by email' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/SFASendCodeViaMsgPage'));
  });

  it('lets a signed-in user with an authenticator reset it and set up a new one', async () => {
    let setUp = true;
    const { calls } = mockSfaApi('Authorized', (server) => ({
      [SETUP]: () => {
        if (setUp) {
          return {
            status: 409,
            body: errorBody('The second factor is already set up.', true, 'SFA_ALREADY_SET'),
          };
        }
        server.status = 'SFAVerifyCodeNeeded';
        return { body: { qrImage: QR_IMAGE, key: KEY } };
      },
      'POST /api/auth/resetSFA': () => {
        setUp = false;
        server.status = 'SFAIsNotSet';
        return { body: { success: true } };
      },
    }));
    renderApp('/SFASetupPage');

    expect((await screen.findByTestId('sfa-setup-error')).textContent).toBe(
      'The second factor is already set up.',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Set up a new authenticator' }));

    expect((await screen.findByTestId('sfa-key')).textContent).toBe(KEY);
    expect(callsTo(calls, 'POST', '/api/auth/resetSFA')).toHaveLength(1);
    expect(callsTo(calls, 'GET', '/api/auth/secondFactorSetup')).toHaveLength(2);
  });
});
