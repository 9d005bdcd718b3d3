import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { CHANGE_PASSWORD_MESSAGES, PASSWORD_MESSAGES } from '@trialpulse/shared';
import {
  baseHandlers,
  decodeAltchaPayload,
  errorBody,
  makeUser,
  mockApi,
} from '@/testing/mock-api';
import { fill, submit, writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';
import { PASSWORD_CHANGED_MESSAGE } from './change-password-page';

const GOOD = 'Str0ng!pass';

async function open(overrides: Parameters<typeof mockApi>[0] = {}) {
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser() }),
    'POST /api/recaptchaVer3Verify': { body: { success: true } },
    'POST /api/auth/changePwdReq': { body: { message: 'Password changed' } },
    ...overrides,
  });
  const { router } = renderApp('/ChangePwdReqPage');
  await screen.findByRole('button', { name: 'Change Password' });
  return { ...api, router };
}

function fillForm(current: string, next: string, confirm: string) {
  fill('Current Password', current);
  fill('New Password', next);
  fill('Confirm Password', confirm);
}

describe('change password page', () => {
  it.each([
    ['', GOOD, GOOD, PASSWORD_MESSAGES.currentRequired],
    ['old', '', '', PASSWORD_MESSAGES.required],
    ['old', 'Sh0rt!', 'Sh0rt!', PASSWORD_MESSAGES.tooShort],
    ['old', 'Way2Long!Password1234', 'Way2Long!Password1234', PASSWORD_MESSAGES.tooLong],
    ['old', 'alllowercase1!', 'alllowercase1!', PASSWORD_MESSAGES.complexity],
    ['old', 'NoSpecial123', 'NoSpecial123', PASSWORD_MESSAGES.complexity],
    ['old', GOOD, 'Str0ng!pasS', PASSWORD_MESSAGES.changeMismatch],
  ])('shows "%s/%s/%s" → %s and sends nothing', async (current, next, confirm, message) => {
    const { calls } = await open();

    fillForm(current, next, confirm);
    submit('Change Password');

    expect(await screen.findByText(message)).toBeTruthy();
    expect(writes(calls)).toHaveLength(0);
  });

  it('runs the human check first, changes the password, then logs out with a message', async () => {
    const { calls, router } = await open();

    fillForm('Old!pass1', GOOD, GOOD);
    submit('Change Password');

    await waitFor(() => expect(router.state.location.pathname).toBe('/LoginPage'));
    expect((await screen.findByTestId('login-notice')).textContent).toBe(PASSWORD_CHANGED_MESSAGE);
    const posts = writes(calls);
    expect(posts.map((call) => call.url)).toEqual([
      '/api/recaptchaVer3Verify',
      '/api/auth/changePwdReq',
      '/api/auth/logout',
    ]);
    expect(
      decodeAltchaPayload((posts[0]?.body as { recaptchaResponse: string }).recaptchaResponse),
    ).toHaveProperty('number');
    expect(posts[1]?.body).toEqual({
      currentPassword: 'Old!pass1',
      newPassword: GOOD,
      newConfirmPassword: GOOD,
    });
  });

  it('shows the server message when displayable, else the generic one', async () => {
    await open({
      'POST /api/auth/changePwdReq': {
        status: 400,
        body: errorBody(CHANGE_PASSWORD_MESSAGES.wrongCurrent, true, 'VALIDATION_ERROR'),
      },
    });
    fillForm('Wrong!pass1', GOOD, GOOD);
    submit('Change Password');
    expect((await screen.findByTestId('change-password-error')).textContent).toBe(
      CHANGE_PASSWORD_MESSAGES.wrongCurrent,
    );
  });

  it('does not change the password when the human check is refused', async () => {
    const { calls, router } = await open({
      'POST /api/recaptchaVer3Verify': { status: 400, body: errorBody('bad token', false) },
    });
    fillForm('Old!pass1', GOOD, GOOD);
    submit('Change Password');

    expect((await screen.findByTestId('change-password-error')).textContent).toBe(
      CHANGE_PASSWORD_MESSAGES.failed,
    );
    expect(calls.some((call) => call.url === '/api/auth/changePwdReq')).toBe(false);
    expect(router.state.location.pathname).toBe('/ChangePwdReqPage');
  });

  it('links to the reset request page', async () => {
    await open();
    expect(screen.getByRole('link', { name: 'Forgot Password?' }).getAttribute('href')).toBe(
      '/ResetPwdReqPage',
    );
  });
});
