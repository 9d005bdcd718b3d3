import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { LOGIN_MESSAGES, type AuthStatus } from '@trialpulse/shared';
import { SKIP_REFRESH_ON_START_KEY } from '@/lib/session';
import {
  baseHandlers,
  decodeAltchaPayload,
  errorBody,
  makeUser,
  mockApi,
} from '@/testing/mock-api';
import { renderApp } from '@/testing/render-app';

function fillAndSubmit(username: string, password: string) {
  fireEvent.change(screen.getByLabelText('Username'), { target: { value: username } });
  fireEvent.change(screen.getByLabelText('Password'), { target: { value: password } });
  fireEvent.click(screen.getByRole('button', { name: 'Log In' }));
}

describe('login page', () => {
  it('asks for username and password before calling the server', async () => {
    const { calls } = mockApi(baseHandlers({ kind: 'signed-out' }));
    renderApp('/LoginPage');

    fireEvent.click(await screen.findByRole('button', { name: 'Log In' }));

    expect(await screen.findByText('Username is required')).toBeTruthy();
    expect(screen.getByText('Password is required')).toBeTruthy();
    expect(calls.some((call) => call.url === '/api/auth/login')).toBe(false);
  });

  it('learns that nobody is signed in from an answer, not a failed call (decision 0195)', async () => {
    const { calls } = mockApi(baseHandlers({ kind: 'signed-out' }));
    renderApp('/LoginPage');
    await screen.findByRole('button', { name: 'Log In' });

    // The spec's current-user calls answer a signed-out visitor 401, which the browser
    // logs as a failed request on every visit; the probe answers 200 { signedIn: false }.
    expect(calls.filter((call) => call.method === 'GET').map((call) => call.url)).toContain(
      '/api/auth/session',
    );
    expect(
      calls.some((call) => call.url === '/api/auth/login/' || call.url === '/api/auth/user'),
    ).toBe(false);
  });

  it('links to the password reset and contact pages and shows a message from navigation', async () => {
    mockApi(baseHandlers({ kind: 'signed-out' }));
    renderApp('/LoginPage', {
      state: { message: 'Your session has expired. Please log in again.' },
    });

    expect((await screen.findByTestId('login-notice')).textContent).toBe(
      'Your session has expired. Please log in again.',
    );
    expect(screen.getByRole('link', { name: 'Forgot password?' }).getAttribute('href')).toBe(
      '/ResetPwdReqPage',
    );
    expect(screen.getByTestId('login-contact-us').getAttribute('href')).toBe('/ContactUsForm/');
  });

  it('posts the credentials with the human-check token and the CSRF header', async () => {
    let signedIn = false;
    const user = makeUser();
    const { calls } = mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'POST /api/auth/login': () => {
        signedIn = true;
        return { body: { message: 'ok', user } };
      },
      'GET /api/auth/session': () => ({
        body: signedIn ? { signedIn: true, user } : { signedIn: false, user: null },
      }),
    });
    const { router } = renderApp('/LoginPage');
    await screen.findByRole('button', { name: 'Log In' });

    fillAndSubmit(' ada ', 'correct horse');

    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    const post = calls.find((call) => call.method === 'POST' && call.url === '/api/auth/login');
    expect(post?.body).toMatchObject({ username: 'ada', password: 'correct horse' });
    const payload = decodeAltchaPayload(
      (post?.body as { recaptchaResponse: string }).recaptchaResponse,
    );
    expect(payload).toMatchObject({ algorithm: 'SHA-256', number: expect.any(Number) });
    expect(post?.headers.get('x-csrf-token')).toBe('csrf-1');
    expect(await screen.findByTestId('dashboard-page')).toBeTruthy();
  });

  it('goes to the second-factor page the status asks for after the password', async () => {
    let passwordOk = false;
    mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'POST /api/auth/login': () => {
        passwordOk = true;
        return { body: { message: 'ok', user: { role: 'User', authStatus: 'SFAIsNotSet' } } };
      },
      'GET /api/auth/session': () => ({
        body: passwordOk
          ? { signedIn: true, user: makeUser({ role: 'User', authStatus: 'SFAIsNotSet' }) }
          : { signedIn: false, user: null },
      }),
    });
    const { router } = renderApp('/LoginPage');
    await screen.findByRole('button', { name: 'Log In' });

    fillAndSubmit('ada', 'secret-pass');

    await waitFor(() => expect(router.state.location.pathname).toBe('/SFASetupPage'));
  });

  it('shows the server message when it may be shown', async () => {
    mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'POST /api/auth/login': {
        status: 401,
        body: errorBody('Invalid username or password.', true, 'UNAUTHENTICATED'),
      },
    });
    renderApp('/LoginPage');
    await screen.findByRole('button', { name: 'Log In' });

    fillAndSubmit('ada', 'wrong');

    expect((await screen.findByTestId('login-error')).textContent).toBe(
      'Invalid username or password.',
    );
  });

  it('shows the generic text when the server message is not for users', async () => {
    mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'POST /api/auth/login': {
        status: 400,
        body: errorBody('body/username must be a string', false),
      },
    });
    renderApp('/LoginPage');
    await screen.findByRole('button', { name: 'Log In' });

    fillAndSubmit('ada', 'whatever');

    expect((await screen.findByTestId('login-error')).textContent).toBe(
      'Login failed - Please try again.',
    );
  });

  it.each([
    [
      'a server fault',
      () => ({ status: 500, body: errorBody('relation "users" does not exist', false) }),
      'Login failed: the server could not complete the sign-in. Please try again later.',
    ],
    [
      'an unreachable server',
      () => {
        throw new TypeError('Failed to fetch');
      },
      'Login failed: the server could not be reached. Please check your connection and try again.',
    ],
  ])(
    'says why the sign-in failed after %s (spec §8 "Login failed: ...")',
    async (_, reply, text) => {
      mockApi({ ...baseHandlers({ kind: 'signed-out' }), 'POST /api/auth/login': reply });
      renderApp('/LoginPage');
      await screen.findByRole('button', { name: 'Log In' });

      fillAndSubmit('ada', 'whatever');

      expect((await screen.findByTestId('login-error')).textContent).toBe(text);
      expect(text.startsWith('Login failed: ')).toBe(true);
    },
  );

  it('sends a signed-in user on to the home page', async () => {
    mockApi(baseHandlers({ kind: 'signed-in', user: makeUser() }));
    const { router } = renderApp('/LoginPage');

    expect(await screen.findByTestId('dashboard-page')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/');
  });

  it.each<[AuthStatus, string]>([
    ['SFAIsNotSet', '/SFASetupPage'],
    ['SFAVerifyCodeNeeded', '/SFAVerifyPage'],
    ['SFAValidateCodeNeeded', '/SFAValidatePage'],
    ['SFAValidateEmailCodeNeeded', '/SFASendCodeViaMsgPage'],
  ])('after the password, status %s leads to %s', async (authStatus, page) => {
    let passwordOk = false;
    mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'POST /api/auth/login': () => {
        passwordOk = true;
        return { body: { message: 'ok', user: makeUser({ authStatus }) } };
      },
      'GET /api/auth/user': () =>
        passwordOk
          ? { status: 403, body: errorBody('SFA', false, 'FORBIDDEN', { authStatus }) }
          : { status: 401, body: errorBody('No session', false) },
    });
    const { router } = renderApp('/LoginPage');
    await screen.findByRole('button', { name: 'Log In' });

    fillAndSubmit('ada', 'secret-pass');

    await waitFor(() => expect(router.state.location.pathname).toBe(page));
  });

  it("the first write after the sign-in carries the new session's anti-forgery token", async () => {
    // The server binds a token to its session: the one fetched before the sign-in is
    // refused (403, a failed request in the console) once the new session exists.
    let signedIn = false;
    let issued = 0;
    const { calls } = mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'GET /api/csrf-token': () => ({ body: { csrfToken: `csrf-${(issued += 1)}` } }),
      'POST /api/auth/login': () => {
        signedIn = true;
        return {
          body: { message: 'ok', user: makeUser({ authStatus: 'SFAValidateEmailCodeNeeded' }) },
        };
      },
      'GET /api/auth/session': () => ({
        body: signedIn
          ? { signedIn: true, user: makeUser({ authStatus: 'SFAValidateEmailCodeNeeded' }) }
          : { signedIn: false, user: null },
      }),
      'POST /api/auth/generateSendEmailTOTP': { body: { success: true, message: 'Sent.' } },
    });
    const { router } = renderApp('/LoginPage');
    await screen.findByRole('button', { name: 'Log In' });

    fillAndSubmit('ada', 'secret-pass');

    await waitFor(() => expect(router.state.location.pathname).toBe('/SFASendCodeViaMsgPage'));
    await waitFor(() =>
      expect(calls.some((call) => call.url === '/api/auth/generateSendEmailTOTP')).toBe(true),
    );
    const login = calls.find((call) => call.url === '/api/auth/login');
    const send = calls.find((call) => call.url === '/api/auth/generateSendEmailTOTP');
    expect(login?.headers.get('x-csrf-token')).toBe('csrf-1');
    expect(send?.headers.get('x-csrf-token')).toBe('csrf-2');
  });

  it('returns a fully signed-in user to the page the guard sent them away from', async () => {
    mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'POST /api/auth/login': { body: { message: 'ok', user: makeUser() } },
    });
    const { router } = renderApp('/Trials');
    await screen.findByRole('button', { name: 'Log In' });

    fillAndSubmit('ada', 'secret-pass');

    await waitFor(() => expect(router.state.location.pathname).toBe('/Trials'));
    // Brand-new tokens: the session timers skip their start refresh (and clear the flag).
    await waitFor(() => expect(localStorage.getItem(SKIP_REFRESH_ON_START_KEY)).toBeNull());
  });

  it('shows the lockout message the server marks as displayable', async () => {
    mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'POST /api/auth/login': {
        status: 401,
        body: errorBody(LOGIN_MESSAGES.locked, true, 'ACCOUNT_LOCKED'),
      },
    });
    const { router } = renderApp('/LoginPage');
    await screen.findByRole('button', { name: 'Log In' });

    fillAndSubmit('ada', 'wrong');

    expect((await screen.findByTestId('login-error')).textContent).toBe(LOGIN_MESSAGES.locked);
    expect(router.state.location.pathname).toBe('/LoginPage');
  });

  it('says the role is missing when the server refuses a role-less account', async () => {
    mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'POST /api/auth/login': { status: 403, body: errorBody('no role', false, 'FORBIDDEN') },
    });
    renderApp('/LoginPage');
    await screen.findByRole('button', { name: 'Log In' });

    fillAndSubmit('ada', 'secret-pass');

    expect((await screen.findByTestId('login-error')).textContent).toBe(LOGIN_MESSAGES.roleMissing);
  });

  it('does not send the credentials when no human-check token can be had', async () => {
    const { calls } = mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'GET /api/humanCheck/challenge': { status: 503, body: errorBody('down', false) },
    });
    renderApp('/LoginPage');
    await screen.findByRole('button', { name: 'Log In' });

    fillAndSubmit('ada', 'secret-pass');

    expect((await screen.findByTestId('login-error')).textContent).toBe(LOGIN_MESSAGES.humanCheck);
    expect(calls.some((call) => call.url === '/api/auth/login')).toBe(false);
  });

  it('shows the demo mailbox link only when the mailbox answers', async () => {
    const { calls } = mockApi(baseHandlers({ kind: 'signed-out' }));
    renderApp('/LoginPage');
    await screen.findByRole('button', { name: 'Log In' });

    await waitFor(() => expect(calls.some((call) => call.url === '/api/dev/mailbox')).toBe(true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByTestId('dev-mailbox-link')).toBeNull();
  });

  it('shows the demo mailbox link in demo mode', async () => {
    mockApi({ ...baseHandlers({ kind: 'signed-out' }), 'GET /api/dev/mailbox': { body: [] } });
    renderApp('/LoginPage');

    const link = await screen.findByRole('link', { name: 'Demo mailbox' });
    expect(link.getAttribute('href')).toBe('/DevMailbox');
  });
});
