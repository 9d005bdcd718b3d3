import { StrictMode } from 'react';
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { errorBody } from '@/testing/mock-api';
import { fieldErrors, fill, submit } from '@/testing/form';
import { renderApp, renderWithProviders } from '@/testing/render-app';
import { CODE_CASES, callsTo, mockSfaApi } from '../testing/sfa-api';
import { SfaSendCodePage } from './sfa-send-code-page';

const SEND = 'POST /api/auth/generateSendEmailTOTP';
const SENT = {
  body: { success: true, message: 'A sign-in code has been sent to your email address.' },
};

async function open(handlers: Parameters<typeof mockSfaApi>[1] = () => ({})) {
  const api = mockSfaApi('SFAValidateCodeNeeded', (server) => ({
    [SEND]: () => {
      server.status = 'SFAValidateEmailCodeNeeded';
      return SENT;
    },
    'POST /api/auth/validateTOTP': () => {
      server.status = 'Authorized';
      return { body: { success: true } };
    },
    ...handlers(server),
  }));
  const { router } = renderApp('/SFASendCodeViaMsgPage');
  await screen.findByTestId('sfa-send-code-page');
  return { ...api, router };
}

const sends = (calls: Parameters<typeof callsTo>[0]) =>
  callsTo(calls, 'POST', '/api/auth/generateSendEmailTOTP');

describe('emailed-code page', () => {
  it('emails a code exactly once on load and says so', async () => {
    const { calls } = await open();

    expect((await screen.findByTestId('sfa-code-sent')).textContent).toBe(
      'A code was sent to your email address',
    );
    expect(sends(calls)).toHaveLength(1);
    expect(sends(calls)[0]?.headers.get('x-csrf-token')).toBe('csrf-1');
  });

  it('emails one code under StrictMode', async () => {
    const { calls } = mockSfaApi('SFAValidateCodeNeeded', () => ({ [SEND]: SENT }));
    renderWithProviders(
      <StrictMode>
        <SfaSendCodePage />
      </StrictMode>,
      { path: '/SFASendCodeViaMsgPage' },
    );

    await screen.findByTestId('sfa-code-sent');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sends(calls)).toHaveLength(1);
  });

  it('goes home when the server answers "SFA already validated"', async () => {
    const { router, calls } = await open((server) => ({
      [SEND]: () => {
        server.status = 'Authorized';
        return { body: { success: false, message: 'SFA already validated' } };
      },
    }));

    expect(await screen.findByTestId('dashboard-page')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/');
    expect(sends(calls)).toHaveLength(1);
  });

  it.each(CODE_CASES)('checks the code "%s" → %s', async (code, message) => {
    const { calls } = await open();
    await screen.findByTestId('sfa-code-sent');

    fill('Emailed code', code);
    submit('Validate');

    expect(await screen.findByText(message)).toBeTruthy();
    expect(fieldErrors()).toEqual([message]);
    expect(callsTo(calls, 'POST', '/api/auth/validateTOTP')).toHaveLength(0);
  });

  it('validates the emailed code with remember-device and goes home', async () => {
    const { calls, router } = await open();
    await screen.findByTestId('sfa-code-sent');

    fill('Emailed code', '246810');
    fireEvent.click(screen.getByLabelText('Remember this device for 48 hours'));
    submit('Validate');

    expect(await screen.findByTestId('dashboard-page')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/');
    expect(callsTo(calls, 'POST', '/api/auth/validateTOTP')[0]?.body).toEqual({
      sfaToken: '246810',
      skipSFA: true,
    });
    expect(sends(calls)).toHaveLength(1);
  });

  it('re-sends a code on request', async () => {
    const { calls } = await open();
    await screen.findByTestId('sfa-code-sent');

    fireEvent.click(screen.getByRole('button', { name: 'Re-send code' }));

    await waitFor(() => expect(sends(calls)).toHaveLength(2));
    expect(await screen.findByTestId('sfa-code-sent')).toBeTruthy();
  });

  it('reports a failed send and offers the authenticator', async () => {
    const { router } = await open(() => ({
      [SEND]: { status: 500, body: errorBody('smtp down', false) },
    }));

    const alert = await screen.findByTestId('sfa-send-error');
    expect(alert.textContent).toContain('Sending code by email failed!');
    expect(alert.textContent).not.toContain('smtp down');
    fireEvent.click(screen.getByRole('button', { name: 'Use the authenticator instead' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/SFAValidatePage'));
  });
});
