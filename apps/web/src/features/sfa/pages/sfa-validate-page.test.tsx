import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { LOGIN_MESSAGES } from '@trialpulse/shared';
import { errorBody } from '@/testing/mock-api';
import { fieldErrors, fill, submit, writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';
import { CODE_CASES, CODE_INVALID, callsTo, mockSfaApi } from '../testing/sfa-api';

async function open(
  handlers: Parameters<typeof mockSfaApi>[1] = () => ({}),
  options: { state?: unknown } = {},
) {
  const api = mockSfaApi('SFAValidateCodeNeeded', (server) => ({
    'POST /api/auth/validateTOTP': () => {
      server.status = 'Authorized';
      return { body: { success: true } };
    },
    ...handlers(server),
  }));
  const { router } = renderApp('/SFAValidatePage', options);
  await screen.findByTestId('sfa-validate-page');
  return { ...api, router };
}

describe('second-factor validate page', () => {
  it.each(CODE_CASES)('checks the code "%s" → %s and sends nothing', async (code, message) => {
    const { calls } = await open();

    fill('Authenticator code', code);
    submit('Validate');

    expect(await screen.findByText(message)).toBeTruthy();
    expect(fieldErrors()).toEqual([message]);
    expect(writes(calls)).toHaveLength(0);
  });

  it('validates the code with remember-device and goes home', async () => {
    const { calls, router } = await open();

    fill('Authenticator code', '123456');
    fireEvent.click(screen.getByLabelText('Remember this device for 48 hours'));
    expect((screen.getByTestId('sfa-remember') as HTMLInputElement).checked).toBe(true);
    submit('Validate');

    expect(await screen.findByTestId('dashboard-page')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/');
    const [validate] = callsTo(calls, 'POST', '/api/auth/validateTOTP');
    expect(validate?.body).toEqual({ sfaToken: '123456', skipSFA: true });
    expect(validate?.headers.get('x-csrf-token')).toBe('csrf-1');
  });

  it('does not remember the device unless asked', async () => {
    const { calls } = await open();

    fill('Authenticator code', '123456');
    submit('Validate');

    expect(await screen.findByTestId('dashboard-page')).toBeTruthy();
    expect(callsTo(calls, 'POST', '/api/auth/validateTOTP')[0]?.body).toEqual({
      sfaToken: '123456',
      skipSFA: false,
    });
  });

  it('goes back to the page the user came from', async () => {
    const { router } = await open(() => ({}), { state: { from: '/UserTeams' } });

    fill('Authenticator code', '123456');
    submit('Validate');

    await waitFor(() => expect(router.state.location.pathname).toBe('/UserTeams'));
  });

  it('shows the server text for a wrong code, the spec text otherwise', async () => {
    let answer = CODE_INVALID;
    await open(() => ({ 'POST /api/auth/validateTOTP': () => answer }));

    fill('Authenticator code', '000000');
    submit('Validate');
    expect((await screen.findByTestId('sfa-error')).textContent).toBe(
      'The code is not correct. Please try again.',
    );

    answer = { status: 502, body: errorBody('upstream', false) };
    submit('Validate');
    await waitFor(() =>
      expect(screen.getByTestId('sfa-error').textContent).toBe(
        'Error: validating sfa token request failed!',
      ),
    );
  });

  it.each([
    [
      'the server message',
      'Account locked for 15 minutes.',
      true,
      'Account locked for 15 minutes.',
    ],
    ['the spec text', 'internal', false, LOGIN_MESSAGES.locked],
  ])('logs out on ACCOUNT_LOCKED with %s', async (_label, message, displayToUser, expected) => {
    const { router } = await open(() => ({
      'POST /api/auth/validateTOTP': {
        status: 401,
        body: errorBody(message, displayToUser, 'ACCOUNT_LOCKED'),
      },
    }));

    fill('Authenticator code', '000000');
    submit('Validate');

    await waitFor(() => expect(router.state.location.pathname).toBe('/LoginPage'));
    expect((await screen.findByTestId('login-notice')).textContent).toBe(expected);
  });

  it('goes home when the server says the second factor was validated meanwhile', async () => {
    const { calls } = mockSfaApi('SFAValidateCodeNeeded', (server) => ({
      // Validated in another tab: the client still holds the pending status.
      'GET /api/auth/isSfaAlreadyValidated': () => {
        server.status = 'Authorized';
        return { body: { success: true } };
      },
    }));
    const { router } = renderApp('/SFAValidatePage');

    expect(await screen.findByTestId('dashboard-page')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/');
    expect(callsTo(calls, 'GET', '/api/auth/isSfaAlreadyValidated')).toHaveLength(1);
  });

  it('sends a signed-in user home without asking the server', async () => {
    const { calls } = mockSfaApi('Authorized');
    const { router } = renderApp('/SFAValidatePage');

    expect(await screen.findByTestId('dashboard-page')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/');
    expect(callsTo(calls, 'GET', '/api/auth/isSfaAlreadyValidated')).toHaveLength(0);
  });

  it('offers a code by email', async () => {
    const { router } = await open(() => ({
      'POST /api/auth/generateSendEmailTOTP': { body: { success: true, message: 'sent' } },
    }));

    fireEvent.click(screen.getByRole('button', { name: 'Send code by email' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/SFASendCodeViaMsgPage'));
  });
});
