import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { DEVICE_MESSAGES, EMAIL_MESSAGES } from '@trialpulse/shared';
import { errorBody, type SessionFixture } from '@/testing/mock-api';
import { fieldErrors, fill, submit, writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';
import { SIGNED_OUT, TRIAL, mockDeviceApi, signedIn, type Handlers } from '../test-fixtures';

const SUCCESS = {
  body: { message: 'Dexcom authorized', participantId: 2, trialId: TRIAL.trialId, brand: 'Dexcom' },
};

function open(query: string, session: SessionFixture = signedIn(), overrides: Handlers = {}) {
  const api = mockDeviceApi(session, { 'POST /api/dexcom-callback': SUCCESS, ...overrides });
  return { ...api, ...renderApp(`/dexcom-callback${query}`) };
}

const emailField = () => screen.findByLabelText('Participant email');
const dexcomPosts = (calls: ReturnType<typeof open>['calls']) =>
  writes(calls).filter((call) => call.url === '/api/dexcom-callback');

describe('/dexcom-callback', () => {
  it.each([
    ['', EMAIL_MESSAGES.required],
    ['not-an-email', EMAIL_MESSAGES.invalid],
  ])('checks the email "%s" → %s and sends nothing', async (email, message) => {
    const { calls } = open('?code=dx-code&state=dx-1');
    await emailField();
    fill('Participant email', email);
    submit('Continue');

    await waitFor(() => expect(fieldErrors()).toEqual([message]));
    expect(dexcomPosts(calls)).toHaveLength(0);
  });

  it('posts code, state and email, then returns to the trial page', async () => {
    const { calls, router } = open('?code=dx-code&state=dx-2');
    await emailField();
    fill('Participant email', 'p2@example.org');
    submit('Continue');

    await waitFor(() => expect(router.state.location.pathname).toBe('/TrialPage'));
    expect(router.state.location.state).toEqual({ trial: TRIAL });
    expect(dexcomPosts(calls).map((call) => call.body)).toEqual([
      { authCode: 'dx-code', state: 'dx-2', participantData: { email: 'p2@example.org' } },
    ]);
    expect(dexcomPosts(calls)[0]?.headers.get('x-csrf-token')).toBe('csrf-1');
  });

  it('signed out, says to close the page after success', async () => {
    open('?code=dx-code&state=dx-3', SIGNED_OUT);
    await emailField();
    fill('Participant email', 'p2@example.org');
    submit('Continue');
    expect((await screen.findByTestId('authorization-complete')).textContent).toBe(
      DEVICE_MESSAGES.authorized,
    );
  });

  it('shows an email mismatch and lets the email be corrected', async () => {
    const { calls } = open('?code=dx-code&state=dx-4', signedIn(), {
      'POST /api/dexcom-callback': {
        status: 400,
        body: errorBody(DEVICE_MESSAGES.dexcomEmailMismatch, true, 'VALIDATION_ERROR'),
      },
    });
    await emailField();
    fill('Participant email', 'wrong@example.org');
    submit('Continue');

    expect((await screen.findByTestId('authorization-error')).textContent).toBe(
      DEVICE_MESSAGES.dexcomEmailMismatch,
    );
    expect(screen.getByLabelText('Participant email')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Continue' })).toBeTruthy();
    expect(dexcomPosts(calls)).toHaveLength(1);
  });

  it('a spent state ends the form with the invalid-request text', async () => {
    open('?code=dx-code&state=dx-5', signedIn(), {
      'POST /api/dexcom-callback': {
        status: 422,
        body: errorBody(DEVICE_MESSAGES.invalidRequest, true, 'VALIDATION_ERROR'),
      },
    });
    await emailField();
    fill('Participant email', 'p2@example.org');
    submit('Continue');

    expect((await screen.findByTestId('authorization-error')).textContent).toBe(
      DEVICE_MESSAGES.invalidRequest,
    );
    expect(screen.queryByLabelText('Participant email')).toBeNull();
  });

  it('Cancel shows the canceled message and sends nothing', async () => {
    const { calls } = open('?code=dx-code&state=dx-6');
    await emailField();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));

    expect((await screen.findByTestId('authorization-canceled')).textContent).toBe(
      DEVICE_MESSAGES.canceled,
    );
    expect(screen.queryByLabelText('Participant email')).toBeNull();
    expect(dexcomPosts(calls)).toHaveLength(0);
  });

  it('without a code shows the invalid-request text and no form', async () => {
    open('?state=dx-7');
    expect((await screen.findByTestId('authorization-error')).textContent).toBe(
      DEVICE_MESSAGES.invalidRequest,
    );
    expect(screen.queryByLabelText('Participant email')).toBeNull();
  });

  it('after Deny shows the failure without asking for the email and tells the server once', async () => {
    const { calls } = open('?error=access_denied&state=dx-8', signedIn(), {
      'POST /api/dexcom-callback': {
        status: 400,
        body: errorBody(DEVICE_MESSAGES.authorizationFailed, true),
      },
    });
    expect((await screen.findByTestId('authorization-error')).textContent).toBe(
      DEVICE_MESSAGES.authorizationFailed,
    );
    expect(screen.queryByLabelText('Participant email')).toBeNull();
    await waitFor(() => expect(dexcomPosts(calls)).toHaveLength(1));
    expect(dexcomPosts(calls)[0]!.body).toEqual({ state: 'dx-8', error: 'access_denied' });
  });
});
