import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import {
  EMAIL_MESSAGES,
  LIMITS,
  NAME_MESSAGES,
  PASSWORD_MESSAGES,
  SIGNUP_MESSAGES,
} from '@trialpulse/shared';
import { baseHandlers, decodeAltchaPayload, errorBody, mockApi } from '@/testing/mock-api';
import { fill, submit, writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';

const GOOD = 'Welc0me!pass';
const INVITATION = {
  email: 'new.person@example.org',
  role: 'User',
  teamId: 4,
  teamName: 'Sleep Study',
};

async function openFromLink(overrides: Parameters<typeof mockApi>[0] = {}) {
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-out' }),
    'POST /api/userSignUpPermission/signupRequestValidation': { body: INVITATION },
    'POST /api/users/signup': {
      body: { success: true, message: 'Account created.', data: { redirectTo: '/LoginPage' } },
    },
    ...overrides,
  });
  const { router } = renderApp('/SignupValidation?token=invite-key-1');
  await screen.findByRole('button', { name: 'Sign Up' });
  return { ...api, router };
}

function fillValid() {
  fill('First Name', 'Grace');
  fill('Last Name', 'Hopper');
  fill('Organization', 'Navy Lab');
  fill('Password', GOOD);
  fill('Confirm Password', GOOD);
  fireEvent.click(screen.getByLabelText('I accept the Terms and Conditions'));
  fireEvent.click(screen.getByLabelText('I accept the Privacy Policy'));
}

describe('sign-up from an invitation', () => {
  afterEach(() => vi.useRealTimers());

  it('validates the emailed key and opens the form with the email read-only', async () => {
    const { calls, router } = await openFromLink();

    expect(router.state.location.pathname).toBe('/SignupPage');
    const email = screen.getByLabelText('Email') as HTMLInputElement;
    expect(email.value).toBe(INVITATION.email);
    expect(email.readOnly).toBe(true);
    expect(
      calls.find((call) => call.url === '/api/userSignUpPermission/signupRequestValidation')?.body,
    ).toEqual({ token: 'invite-key-1' });
  });

  it('shows every required-field message and sends nothing', async () => {
    const { calls } = await openFromLink();
    submit('Sign Up');

    expect(await screen.findByText(NAME_MESSAGES.firstRequired)).toBeTruthy();
    for (const message of [
      NAME_MESSAGES.lastRequired,
      PASSWORD_MESSAGES.required,
      SIGNUP_MESSAGES.acceptTerms,
      SIGNUP_MESSAGES.acceptPrivacy,
    ]) {
      expect(screen.getByText(message)).toBeTruthy();
    }
    expect(writes(calls).filter((call) => call.url === '/api/users/signup')).toHaveLength(0);
  });

  it.each([
    ['First Name', 'G', NAME_MESSAGES.firstLength],
    ['Last Name', 'x'.repeat(51), NAME_MESSAGES.lastLength],
    ['Password', 'Sh0rt!', PASSWORD_MESSAGES.tooShort],
    ['Password', 'Way2Long!Password1234', PASSWORD_MESSAGES.tooLong],
    ['Password', 'NOLOWER123!', PASSWORD_MESSAGES.complexity],
    ['Confirm Password', 'Different!1', PASSWORD_MESSAGES.signupMismatch],
  ])('%s "%s" → %s', async (label, value, message) => {
    const { calls } = await openFromLink();
    fillValid();
    fill(label, value);
    submit('Sign Up');

    expect(await screen.findByText(message)).toBeTruthy();
    expect(calls.some((call) => call.url === '/api/users/signup')).toBe(false);
  });

  it('registers, shows the notice and redirects to the login page after 1500 ms', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { calls, router } = await openFromLink();
    fillValid();
    submit('Sign Up');

    expect((await screen.findByTestId('signup-success')).textContent).toContain('Account created.');
    expect(router.state.location.pathname).toBe('/SignupPage');

    await act(() => vi.advanceTimersByTimeAsync(LIMITS.signupRedirectMs - 500));
    expect(router.state.location.pathname).toBe('/SignupPage');

    await act(() => vi.advanceTimersByTimeAsync(500));
    await waitFor(() => expect(router.state.location.pathname).toBe('/LoginPage'));

    const body = calls.find((call) => call.url === '/api/users/signup')?.body as Record<
      string,
      unknown
    >;
    expect(body).toMatchObject({
      token: 'invite-key-1',
      username: INVITATION.email,
      email: INVITATION.email,
      password: GOOD,
      confirmPassword: GOOD,
      firstName: 'Grace',
      lastName: 'Hopper',
      organization: 'Navy Lab',
      acceptTerms: true,
      acceptPrivacy: true,
      teamId: 4,
      teamName: 'Sleep Study',
      role: 'User',
    });
    expect(decodeAltchaPayload(body.recaptchaResponse)).toHaveProperty('number');
  });

  it('shows the server message of an unsuccessful sign-up', async () => {
    await openFromLink({
      'POST /api/users/signup': { body: { success: false, message: 'This invitation was used.' } },
    });
    fillValid();
    submit('Sign Up');
    expect((await screen.findByTestId('signup-error')).textContent).toBe(
      'This invitation was used.',
    );
  });

  it.each([
    [{ status: 500, body: errorBody('db down', false) }, SIGNUP_MESSAGES.failed],
    [
      { status: 409, body: errorBody('This email is already registered.', true) },
      'This email is already registered.',
    ],
    [{ body: { success: false } }, SIGNUP_MESSAGES.unsuccessful],
  ])('failure %# shows the right text', async (reply, message) => {
    await openFromLink({ 'POST /api/users/signup': reply });
    fillValid();
    submit('Sign Up');
    expect((await screen.findByTestId('signup-error')).textContent).toBe(message);
  });

  it('shows the invalid-link text when the key does not validate', async () => {
    mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'POST /api/userSignUpPermission/signupRequestValidation': {
        status: 400,
        body: errorBody('expired', false),
      },
    });
    renderApp('/SignupValidation?token=old');
    expect((await screen.findByTestId('signup-validation-error')).textContent).toContain(
      'invalid or has expired',
    );
    expect(screen.getByTestId('signup-contact-link').getAttribute('href')).toBe('/ContactUsForm/');
  });

  it('without an invitation shows a message with a link to the contact form', async () => {
    const { calls } = mockApi(baseHandlers({ kind: 'signed-out' }));
    renderApp('/SignupPage');

    expect(await screen.findByTestId('signup-no-invitation')).toBeTruthy();
    expect(screen.getByTestId('signup-contact-link').getAttribute('href')).toBe('/ContactUsForm/');
    expect(screen.queryByRole('button', { name: 'Sign Up' })).toBeNull();
    expect(writes(calls)).toHaveLength(0);
  });

  it('sends a direct /SignupPage?token= link through the validation first', async () => {
    mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'POST /api/userSignUpPermission/signupRequestValidation': { body: INVITATION },
    });
    const { router } = renderApp('/SignupPage?token=invite-key-2');

    await screen.findByRole('button', { name: 'Sign Up' });
    expect(router.state.location.pathname).toBe('/SignupPage');
    expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe(INVITATION.email);
  });

  it('rejects a bad email in the invitation data', async () => {
    await openFromLink({
      'POST /api/userSignUpPermission/signupRequestValidation': {
        body: { ...INVITATION, email: 'broken' },
      },
    });
    fillValid();
    submit('Sign Up');
    expect(await screen.findByText(EMAIL_MESSAGES.invalid)).toBeTruthy();
  });
});
