import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import {
  EMAIL_MESSAGES,
  LOGIN_MESSAGES,
  PASSWORD_MESSAGES,
  SIGNUP_MESSAGES,
} from '@trialpulse/shared';
import { baseHandlers, decodeAltchaPayload, errorBody, mockApi } from '@/testing/mock-api';
import { fill, submit, writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';
import { PARTICIPANT_SIGNUP_SUCCESS } from './participant-signup-page';

const GOOD = 'Walk!ng2024';

describe.each(['/ParticipantSignupPage', '/Participants'])(
  'participant registration at %s',
  (path) => {
    async function open(overrides: Parameters<typeof mockApi>[0] = {}) {
      const api = mockApi({
        ...baseHandlers({ kind: 'signed-out' }),
        'POST /api/Participants/signup': { body: { success: true } },
        ...overrides,
      });
      renderApp(path);
      await screen.findByRole('button', { name: 'Sign Up' });
      return api;
    }

    function fillForm(username: string, email: string, password: string, confirm: string) {
      fill('Username', username);
      fill('Email', email);
      fill('Password', password);
      fill('Confirm Password', confirm);
    }

    it('shows the required-field messages and sends nothing', async () => {
      const { calls } = await open();
      submit('Sign Up');

      expect(await screen.findByText('Username is required')).toBeTruthy();
      expect(screen.getByText(EMAIL_MESSAGES.required)).toBeTruthy();
      expect(screen.getByText(PASSWORD_MESSAGES.required)).toBeTruthy();
      expect(writes(calls)).toHaveLength(0);
    });

    it.each([
      ['walker', 'walker@', GOOD, GOOD, EMAIL_MESSAGES.invalid],
      ['walker', 'w@example.org', 'Sh0rt!', 'Sh0rt!', PASSWORD_MESSAGES.tooShort],
      [
        'walker',
        'w@example.org',
        'Way2Long!Password1234',
        'Way2Long!Password1234',
        PASSWORD_MESSAGES.tooLong,
      ],
      ['walker', 'w@example.org', 'nospecial1A', 'nospecial1A', PASSWORD_MESSAGES.complexity],
      ['walker', 'w@example.org', GOOD, 'Walk!ng2025', PASSWORD_MESSAGES.signupMismatch],
    ])('%s / %s / %s / %s → %s', async (username, email, password, confirm, message) => {
      const { calls } = await open();
      fillForm(username, email, password, confirm);
      submit('Sign Up');

      expect(await screen.findByText(message)).toBeTruthy();
      expect(writes(calls)).toHaveLength(0);
    });

    it('registers and offers the participant login', async () => {
      const { calls } = await open();
      fillForm('walker', 'w@example.org', GOOD, GOOD);
      submit('Sign Up');

      expect((await screen.findByTestId('participant-signup-success')).textContent).toBe(
        PARTICIPANT_SIGNUP_SUCCESS,
      );
      expect(calls.find((call) => call.url === '/api/Participants/signup')?.body).toEqual({
        username: 'walker',
        email: 'w@example.org',
        password: GOOD,
        confirmPassword: GOOD,
      });
      expect(screen.getByTestId('participant-signup-login').getAttribute('href')).toBe(
        '/ParticipantLoginPage',
      );
    });

    it('shows the failure text, or the server message when displayable', async () => {
      await open({
        'POST /api/Participants/signup': { status: 500, body: errorBody('db', false) },
      });
      fillForm('walker', 'w@example.org', GOOD, GOOD);
      submit('Sign Up');
      expect((await screen.findByTestId('participant-signup-error')).textContent).toBe(
        SIGNUP_MESSAGES.failed,
      );
    });
  },
);

describe('participant login', () => {
  async function open(overrides: Parameters<typeof mockApi>[0] = {}) {
    const api = mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'POST /api/Participants/login': { body: { message: 'Login successful' } },
      ...overrides,
    });
    const { router } = renderApp('/ParticipantLoginPage');
    await screen.findByRole('button', { name: 'Log In' });
    return { ...api, router };
  }

  it('asks for username and password and sends nothing', async () => {
    const { calls } = await open();
    submit('Log In');
    expect(await screen.findByText('Username is required')).toBeTruthy();
    expect(screen.getByText('Password is required')).toBeTruthy();
    expect(writes(calls)).toHaveLength(0);
  });

  it('logs in with a human-check token and shows the participant landing text', async () => {
    const { calls, router } = await open();
    fill('Username', 'walker');
    fill('Password', GOOD);
    submit('Log In');

    expect(await screen.findByTestId('participant-landing')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/ParticipantLoginPage');
    const body = calls.find((call) => call.url === '/api/Participants/login')?.body as Record<
      string,
      unknown
    >;
    expect(body).toMatchObject({ username: 'walker', password: GOOD });
    expect(decodeAltchaPayload(body.recaptchaResponse)).toHaveProperty('number');
  });

  it('shows the server message only when displayable', async () => {
    await open({
      'POST /api/Participants/login': {
        status: 401,
        body: errorBody(LOGIN_MESSAGES.invalidCredentials, true, 'UNAUTHENTICATED'),
      },
    });
    fill('Username', 'walker');
    fill('Password', 'wrong');
    submit('Log In');
    expect((await screen.findByTestId('participant-login-error')).textContent).toBe(
      LOGIN_MESSAGES.invalidCredentials,
    );
  });
});
