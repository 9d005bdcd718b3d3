import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { PASSWORD_MESSAGES, RESET_MESSAGES } from '@trialpulse/shared';
import { baseHandlers, errorBody, mockApi } from '@/testing/mock-api';
import { fill, submit, writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';

const GOOD = 'N3w!password';

async function openWithToken(overrides: Parameters<typeof mockApi>[0] = {}) {
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-out' }),
    'POST /api/auth/resetPasswordValidation': { body: { userId: 7 } },
    'POST /api/auth/resetPassword': { body: { message: 'ok' } },
    ...overrides,
  });
  renderApp('/ResetPasswordPage?token=reset-key-1');
  return api;
}

describe('reset password page', () => {
  it('without a token says the key is missing and links to a new request', async () => {
    const { calls } = mockApi(baseHandlers({ kind: 'signed-out' }));
    renderApp('/ResetPasswordPage');

    expect((await screen.findByTestId('reset-missing-key')).textContent).toBe(
      RESET_MESSAGES.missingKey,
    );
    expect(screen.getByTestId('reset-new-request').getAttribute('href')).toBe('/ResetPwdReqPage');
    expect(writes(calls)).toHaveLength(0);
  });

  it.each([
    ['', '', PASSWORD_MESSAGES.required],
    ['Sh0rt!', 'Sh0rt!', PASSWORD_MESSAGES.tooShort],
    ['Way2Long!Password1234', 'Way2Long!Password1234', PASSWORD_MESSAGES.tooLong],
    ['nouppercase1!', 'nouppercase1!', PASSWORD_MESSAGES.complexity],
    [GOOD, 'N3w!passwordX', PASSWORD_MESSAGES.resetMismatch],
  ])('shows "%s/%s" → %s and sends nothing', async (next, confirm, message) => {
    const { calls } = await openWithToken();
    await screen.findByRole('button', { name: 'Set New Password' });

    fill('New Password', next);
    fill('Confirm Password', confirm);
    submit('Set New Password');

    expect(await screen.findByText(message)).toBeTruthy();
    expect(calls.some((call) => call.url === '/api/auth/resetPassword')).toBe(false);
  });

  it('validates the key, sets the new password and links to the login page', async () => {
    const { calls } = await openWithToken();
    await screen.findByRole('button', { name: 'Set New Password' });

    fill('New Password', GOOD);
    fill('Confirm Password', GOOD);
    submit('Set New Password');

    expect((await screen.findByTestId('reset-password-success')).textContent).toBe(
      RESET_MESSAGES.success,
    );
    expect(screen.getByTestId('reset-password-login').getAttribute('href')).toBe('/LoginPage');
    expect(calls.find((call) => call.url === '/api/auth/resetPasswordValidation')?.body).toEqual({
      token: 'reset-key-1',
    });
    expect(calls.find((call) => call.url === '/api/auth/resetPassword')?.body).toEqual({
      token: 'reset-key-1',
      newPassword: GOOD,
      newConfirmPassword: GOOD,
    });
  });

  it('shows the validation failure (server text when displayable)', async () => {
    await openWithToken({
      'POST /api/auth/resetPasswordValidation': { status: 400, body: errorBody('gone', false) },
    });
    expect((await screen.findByTestId('reset-validation-error')).textContent).toBe(
      RESET_MESSAGES.validationFailed,
    );
    expect(screen.queryByRole('button', { name: 'Set New Password' })).toBeNull();
  });

  it('shows the displayable server text for an expired key', async () => {
    await openWithToken({
      'POST /api/auth/resetPasswordValidation': {
        status: 400,
        body: errorBody(RESET_MESSAGES.invalidOrExpired, true),
      },
    });
    expect((await screen.findByTestId('reset-validation-error')).textContent).toBe(
      RESET_MESSAGES.invalidOrExpired,
    );
  });

  it('shows the reset failure text', async () => {
    await openWithToken({
      'POST /api/auth/resetPassword': { status: 500, body: errorBody('db', false) },
    });
    await screen.findByRole('button', { name: 'Set New Password' });
    fill('New Password', GOOD);
    fill('Confirm Password', GOOD);
    submit('Set New Password');

    expect((await screen.findByTestId('reset-password-error')).textContent).toBe(
      RESET_MESSAGES.resetFailed,
    );
  });
});
