import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { LIMITS, LOGIN_MESSAGES } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { baseHandlers, errorBody, makeUser, mockApi, type RecordedCall } from '@/testing/mock-api';
import { renderApp } from '@/testing/render-app';
import { SKIP_REFRESH_ON_START_KEY } from './session-timers';

const refreshes = (calls: RecordedCall[]) =>
  calls.filter((call) => call.method === 'POST' && call.url === '/api/auth/refreshToken');

async function advance(ms: number) {
  await act(() => vi.advanceTimersByTimeAsync(ms));
}

async function startSignedIn(overrides: Parameters<typeof mockApi>[0] = {}) {
  const result = mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser() }),
    ...overrides,
  });
  const { router } = renderApp('/');
  expect(await screen.findByTestId('dashboard-page')).toBeTruthy();
  return { ...result, router };
}

describe('session timers', () => {
  beforeEach(() => vi.useFakeTimers({ shouldAdvanceTime: true }));
  afterEach(() => vi.useRealTimers());

  it('refreshes the tokens when a session starts', async () => {
    const { calls } = await startSignedIn();
    await waitFor(() => expect(refreshes(calls)).toHaveLength(1));
  });

  it('skips the start refresh right after a login and clears the flag', async () => {
    localStorage.setItem(SKIP_REFRESH_ON_START_KEY, '1');
    const { calls } = await startSignedIn();

    await advance(1000);
    expect(refreshes(calls)).toHaveLength(0);
    expect(localStorage.getItem(SKIP_REFRESH_ON_START_KEY)).toBeNull();
  });

  it('refreshes every 12 minutes only when the user was active in between', async () => {
    localStorage.setItem(SKIP_REFRESH_ON_START_KEY, '1');
    const { calls } = await startSignedIn();

    await advance(LIMITS.tokenRefreshIntervalMs);
    expect(refreshes(calls)).toHaveLength(0);

    fireEvent.keyDown(window, { key: 'a' });
    await advance(LIMITS.tokenRefreshIntervalMs);
    expect(refreshes(calls)).toHaveLength(1);

    // No activity since that refresh: the next interval passes without one.
    await advance(LIMITS.tokenRefreshIntervalMs);
    expect(refreshes(calls)).toHaveLength(1);

    fireEvent.mouseMove(document.body);
    await advance(LIMITS.tokenRefreshIntervalMs);
    expect(refreshes(calls)).toHaveLength(2);
  });

  it('polls GET /auth/user every 30 s and logs out with the expired message on 401', async () => {
    let expired = false;
    const { calls, router } = await startSignedIn({
      'GET /api/auth/user': () =>
        expired
          ? { status: 401, body: errorBody('jwt expired', false, 'UNAUTHENTICATED') }
          : { body: { message: 'ok', user: makeUser() } },
    });
    const polls = () => calls.filter((call) => call.url === '/api/auth/user');

    await advance(LIMITS.sessionPollIntervalMs);
    expect(polls()).toHaveLength(1);
    expect(router.state.location.pathname).toBe('/');

    expired = true;
    await advance(LIMITS.sessionPollIntervalMs);

    await waitFor(() => expect(router.state.location.pathname).toBe('/LoginPage'));
    expect((await screen.findByTestId('login-notice')).textContent).toBe(
      LOGIN_MESSAGES.sessionExpired,
    );
    expect(calls.some((call) => call.url === '/api/auth/logout')).toBe(true);

    // Signed out: the poll stops.
    const pollsAtLogout = polls().length;
    await advance(LIMITS.sessionPollIntervalMs * 3);
    expect(polls()).toHaveLength(pollsAtLogout);
  });

  it('keeps the user and follows the status when the poll answers 403 with a second factor due', async () => {
    const { router } = await startSignedIn({
      'GET /api/auth/user': {
        status: 403,
        body: errorBody('Second factor required', false, 'FORBIDDEN', {
          authStatus: 'SFAValidateCodeNeeded',
        }),
      },
    });

    await advance(LIMITS.sessionPollIntervalMs);

    await waitFor(() => expect(router.state.location.pathname).toBe('/SFAValidatePage'));
  });

  it('polls GET /auth/session, not the 403 of GET /auth/user, while the second factor is due', async () => {
    localStorage.setItem(SKIP_REFRESH_ON_START_KEY, '1');
    const { calls } = mockApi(
      baseHandlers({ kind: 'second-factor', authStatus: 'SFAValidateCodeNeeded' }),
    );
    const { router } = renderApp('/SFAValidatePage');
    await screen.findByTestId('sfa-validate-page');
    const probes = () => calls.filter((call) => call.url === '/api/auth/session');
    const probesAtLoad = probes().length;

    await advance(LIMITS.sessionPollIntervalMs * 2);

    // The user waiting on the code page sends no call the server answers 403.
    expect(calls.filter((call) => call.url === '/api/auth/user')).toHaveLength(0);
    expect(probes()).toHaveLength(probesAtLoad + 2);
    expect(router.state.location.pathname).toBe('/SFAValidatePage');
  });

  it('logs out with the expired message when the second-factor poll finds no session', async () => {
    localStorage.setItem(SKIP_REFRESH_ON_START_KEY, '1');
    let expired = false;
    const { calls } = mockApi({
      ...baseHandlers({ kind: 'second-factor', authStatus: 'SFAValidateCodeNeeded' }),
      'GET /api/auth/session': () =>
        expired
          ? { body: { signedIn: false, user: null } }
          : {
              body: {
                signedIn: true,
                user: makeUser({ role: null, authStatus: 'SFAValidateCodeNeeded' }),
              },
            },
    });
    const { router } = renderApp('/SFAValidatePage');
    await screen.findByTestId('sfa-validate-page');

    expired = true;
    await advance(LIMITS.sessionPollIntervalMs);

    await waitFor(() => expect(router.state.location.pathname).toBe('/LoginPage'));
    expect((await screen.findByTestId('login-notice')).textContent).toBe(
      LOGIN_MESSAGES.sessionExpired,
    );
    expect(calls.some((call) => call.url === '/api/auth/logout')).toBe(true);
  });

  it('logs out when the refresh fails', async () => {
    const { router } = await startSignedIn({
      'POST /api/auth/refreshToken': {
        status: 401,
        body: errorBody('Refresh token reused', false, 'UNAUTHENTICATED'),
      },
    });

    await waitFor(() => expect(router.state.location.pathname).toBe('/LoginPage'));
    expect((await screen.findByTestId('login-notice')).textContent).toBe(
      LOGIN_MESSAGES.sessionExpired,
    );
  });

  it('logs out when any other call answers 401', async () => {
    localStorage.setItem(SKIP_REFRESH_ON_START_KEY, '1');
    const { router } = await startSignedIn({
      'GET /api/userTrials/': { status: 401, body: errorBody('Expired', false, 'UNAUTHENTICATED') },
    });

    await act(async () => {
      await api.get('/userTrials/').catch(() => undefined);
    });

    await waitFor(() => expect(router.state.location.pathname).toBe('/LoginPage'));
    expect((await screen.findByTestId('login-notice')).textContent).toBe(
      LOGIN_MESSAGES.sessionExpired,
    );
  });

  it('runs no timers for a signed-out visitor', async () => {
    const { calls } = mockApi(baseHandlers({ kind: 'signed-out' }));
    renderApp('/LoginPage');
    await screen.findByRole('button', { name: 'Log In' });

    await advance(LIMITS.tokenRefreshIntervalMs);

    expect(refreshes(calls)).toHaveLength(0);
    expect(calls.some((call) => call.url === '/api/auth/user')).toBe(false);
  });
});
