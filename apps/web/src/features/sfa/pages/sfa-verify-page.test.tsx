import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { errorBody } from '@/testing/mock-api';
import { fieldErrors, fill, submit, writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';
import { ACCOUNT_LOCKED, CODE_CASES, CODE_INVALID, callsTo, mockSfaApi } from '../testing/sfa-api';

async function open(handlers: Parameters<typeof mockSfaApi>[1] = () => ({})) {
  const api = mockSfaApi('SFAVerifyCodeNeeded', (server) => ({
    'POST /api/auth/verifyTOTP': () => {
      server.status = 'signed-out';
      return {
        body: { success: true, message: 'The second factor is set up. Please log in again.' },
      };
    },
    ...handlers(server),
  }));
  const { router } = renderApp('/SFAVerifyPage');
  await screen.findByTestId('sfa-verify-page');
  return { ...api, router };
}

describe('second-factor verify page', () => {
  it.each(CODE_CASES)('checks the code "%s" → %s and sends nothing', async (code, message) => {
    const { calls } = await open();

    fill('Authenticator code', code);
    submit('Verify');

    expect(await screen.findByText(message)).toBeTruthy();
    expect(fieldErrors()).toEqual([message]);
    expect(writes(calls)).toHaveLength(0);
  });

  it('links back to the set-up page', async () => {
    await open();

    expect(screen.getByTestId('sfa-back-to-setup').getAttribute('href')).toBe('/SFASetupPage');
  });

  it('verifies the code, then logs out to the login page with a message', async () => {
    const { calls, router } = await open();

    fill('Authenticator code', '654321');
    submit('Verify');

    await waitFor(() => expect(router.state.location.pathname).toBe('/LoginPage'));
    expect(callsTo(calls, 'POST', '/api/auth/verifyTOTP')[0]?.body).toEqual({ sfaToken: '654321' });
    expect((await screen.findByTestId('login-notice')).textContent).toBe(
      'Your authenticator is set up. Please log in again.',
    );
  });

  it('shows the server text for a wrong code', async () => {
    const { router } = await open(() => ({ 'POST /api/auth/verifyTOTP': CODE_INVALID }));

    fill('Authenticator code', '000000');
    submit('Verify');

    expect((await screen.findByTestId('sfa-error')).textContent).toBe(
      'The code is not correct. Please try again.',
    );
    expect(router.state.location.pathname).toBe('/SFAVerifyPage');
  });

  it('shows the spec text when the server message is not for users', async () => {
    await open(() => ({
      'POST /api/auth/verifyTOTP': { status: 500, body: errorBody('db down', false) },
    }));

    fill('Authenticator code', '000000');
    submit('Verify');

    expect((await screen.findByTestId('sfa-error')).textContent).toBe(
      'Error: validating sfa token request failed!',
    );
  });

  it('logs out with the lock message when the account gets locked', async () => {
    const { router } = await open(() => ({ 'POST /api/auth/verifyTOTP': ACCOUNT_LOCKED }));

    fill('Authenticator code', '000000');
    submit('Verify');

    await waitFor(() => expect(router.state.location.pathname).toBe('/LoginPage'));
    expect((await screen.findByTestId('login-notice')).textContent).toBe(
      'Account locked due to too many failed attempts',
    );
  });
});
