import { afterEach, describe, expect, it } from 'vitest';
import { configure, fireEvent, screen, waitFor } from '@testing-library/react';
import { DEVICE_ERROR_REASONS, DEVICE_MESSAGES, GENERIC_ERROR_MESSAGE } from '@trialpulse/shared';
import { errorBody, type SessionFixture } from '@/testing/mock-api';
import { writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';
import { SIGNED_OUT, TRIAL, mockDeviceApi, signedIn, type Handlers } from '../test-fixtures';

const success = (brand: string) => ({
  body: { message: `${brand} authorized`, participantId: 2, trialId: TRIAL.trialId, brand },
});

/** Each test uses its own state: a state is posted at most once per page load. */
let stateCounter = 0;
const nextState = () => `state-${++stateCounter}`;

function open(path: string, session: SessionFixture = SIGNED_OUT, overrides: Handlers = {}) {
  const api = mockDeviceApi(session, {
    'POST /api/fitbit-callback': success('Fitbit'),
    'POST /api/omron-callback': success('Omron'),
    ...overrides,
  });
  return { ...api, ...renderApp(path) };
}

const callbackPosts = (calls: ReturnType<typeof open>['calls']) =>
  writes(calls).filter((call) => call.url.endsWith('-callback'));

const shownError = async () => (await screen.findByTestId('authorization-error')).textContent;

describe('provider callback pages', () => {
  afterEach(() => {
    configure({ reactStrictMode: false });
  });

  it.each([
    ['/fitbit-callback', '/api/fitbit-callback'],
    ['/omron-callback', '/api/omron-callback'],
  ])('%s posts the code and state and, signed out, says to close the page', async (path, url) => {
    const state = nextState();
    const { calls } = open(`${path}?code=code-1&state=${state}`);

    expect((await screen.findByTestId('authorization-complete')).textContent).toBe(
      DEVICE_MESSAGES.authorized,
    );
    expect(callbackPosts(calls).map((call) => [call.url, call.body])).toEqual([
      [url, { authCode: 'code-1', state }],
    ]);
    expect(calls.some((call) => call.url === '/api/userTrials/')).toBe(false);
  });

  it('signed in, returns to the trial page with the trial of the answer', async () => {
    const { router } = open(`/fitbit-callback?code=code-1&state=${nextState()}`, signedIn());

    await waitFor(() => expect(router.state.location.pathname).toBe('/TrialPage'));
    expect(router.state.location.state).toEqual({ trial: TRIAL });
    expect((await screen.findByTestId('trial-title')).textContent).toBe(
      'Trial: #CARD-01 - Cardio One',
    );
  });

  it('signed in, says to close the page when the trial is not among the caller’s', async () => {
    const { router } = open(`/omron-callback?code=code-1&state=${nextState()}`, signedIn(), {
      'GET /api/userTrials/': { body: [] },
    });
    expect((await screen.findByTestId('authorization-complete')).textContent).toBe(
      DEVICE_MESSAGES.authorized,
    );
    expect(router.state.location.pathname).toBe('/omron-callback');
  });

  it.each([
    ['/fitbit-callback', 'POST /api/fitbit-callback', DEVICE_MESSAGES.fitbitAuthorizationFailed],
    ['/omron-callback', 'POST /api/omron-callback', DEVICE_MESSAGES.omronAuthorizationFailed],
  ])('%s after Deny posts the error and shows the spec text', async (path, route, message) => {
    const state = nextState();
    const { calls } = open(`${path}?error=access_denied&state=${state}`, SIGNED_OUT, {
      [route]: { status: 400, body: errorBody(message, true, 'VALIDATION_ERROR') },
    });

    expect(await shownError()).toBe(message);
    expect(callbackPosts(calls).map((call) => call.body)).toEqual([
      { error: 'access_denied', state },
    ]);
  });

  it('Cancel after an error shows the canceled message', async () => {
    open(`/fitbit-callback?error=access_denied&state=${nextState()}`, SIGNED_OUT, {
      'POST /api/fitbit-callback': {
        status: 400,
        body: errorBody(DEVICE_MESSAGES.fitbitAuthorizationFailed, true),
      },
    });
    await shownError();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));

    expect((await screen.findByTestId('authorization-canceled')).textContent).toBe(
      DEVICE_MESSAGES.canceled,
    );
    expect(screen.queryByTestId('authorization-error')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Cancel' })).toBeNull();
  });

  it('a replayed or expired state shows the invalid-request text', async () => {
    open(`/fitbit-callback?code=code-1&state=${nextState()}`, SIGNED_OUT, {
      'POST /api/fitbit-callback': {
        status: 422,
        body: errorBody(DEVICE_MESSAGES.invalidRequest, true, 'VALIDATION_ERROR'),
      },
    });
    expect(await shownError()).toBe(DEVICE_MESSAGES.invalidRequest);
  });

  it.each([
    ['/fitbit-callback', 'POST /api/fitbit-callback', DEVICE_MESSAGES.somethingWentWrong],
    ['/omron-callback', 'POST /api/omron-callback', DEVICE_MESSAGES.authorizationFailed],
  ])(
    '%s falls back to its own text when the server says nothing displayable',
    async (path, route, message) => {
      open(`${path}?code=code-1&state=${nextState()}`, SIGNED_OUT, {
        [route]: { status: 500, body: errorBody(GENERIC_ERROR_MESSAGE, false, 'INTERNAL_ERROR') },
      });
      expect(await shownError()).toBe(message);
    },
  );

  it.each([
    ['/fitbit-callback', 'POST /api/fitbit-callback', DEVICE_MESSAGES.unableToComplete],
    ['/omron-callback', 'POST /api/omron-callback', DEVICE_MESSAGES.authorizationFailed],
  ])(
    '%s shows the spec text of a failed code exchange (502, by reason)',
    async (path, route, message) => {
      open(`${path}?code=code-1&state=${nextState()}`, SIGNED_OUT, {
        [route]: {
          status: 502,
          body: errorBody(GENERIC_ERROR_MESSAGE, false, DEVICE_ERROR_REASONS.exchangeFailed),
        },
      });
      expect(await shownError()).toBe(message);
    },
  );

  it.each(['', '?state=s-1', '?code=code-1'])(
    'without a code or error and a state (%s) shows the invalid-request text and posts nothing',
    async (query) => {
      const { calls } = open(`/omron-callback${query}`);
      expect(await shownError()).toBe(DEVICE_MESSAGES.invalidRequest);
      expect(callbackPosts(calls)).toHaveLength(0);
    },
  );

  it('posts exactly once under StrictMode', async () => {
    configure({ reactStrictMode: true });
    const state = nextState();
    const { calls } = open(`/fitbit-callback?code=code-1&state=${state}`);

    expect((await screen.findByTestId('authorization-complete')).textContent).toBe(
      DEVICE_MESSAGES.authorized,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(callbackPosts(calls).map((call) => call.body)).toEqual([{ authCode: 'code-1', state }]);
  });
});
