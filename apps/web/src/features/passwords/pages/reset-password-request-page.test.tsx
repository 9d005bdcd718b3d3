import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { EMAIL_MESSAGES, RESET_MESSAGES } from '@trialpulse/shared';
import { baseHandlers, decodeAltchaPayload, errorBody, mockApi } from '@/testing/mock-api';
import { fill, submit, writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';

async function open(overrides: Parameters<typeof mockApi>[0] = {}) {
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-out' }),
    'POST /api/auth/forgotPassword': { body: { message: 'ok' } },
    ...overrides,
  });
  renderApp('/ResetPwdReqPage');
  await screen.findByRole('button', { name: 'Send Reset Link' });
  return api;
}

describe('reset password request page', () => {
  it.each([
    ['', EMAIL_MESSAGES.required],
    ['not-an-email', EMAIL_MESSAGES.invalid],
  ])('shows "%s" → %s and sends nothing', async (email, message) => {
    const { calls } = await open();
    fill('Email', email);
    submit('Send Reset Link');

    expect(await screen.findByText(message)).toBeTruthy();
    expect(writes(calls)).toHaveLength(0);
  });

  it('sends the email with a human-check token and shows the confirmation', async () => {
    const { calls } = await open();
    fill('Email', ' ada@example.org ');
    submit('Send Reset Link');

    expect((await screen.findByTestId('reset-request-confirmation')).textContent).toBe(
      RESET_MESSAGES.requestConfirmation,
    );
    const post = calls.find((call) => call.url === '/api/auth/forgotPassword');
    expect(post?.body).toMatchObject({ email: 'ada@example.org' });
    expect(
      decodeAltchaPayload((post?.body as { recaptchaResponse: string }).recaptchaResponse),
    ).toHaveProperty('number');
  });

  it('shows the request failure text', async () => {
    await open({
      'POST /api/auth/forgotPassword': { status: 500, body: errorBody('smtp down', false) },
    });
    fill('Email', 'ada@example.org');
    submit('Send Reset Link');

    expect((await screen.findByTestId('reset-request-error')).textContent).toBe(
      RESET_MESSAGES.requestFailed,
    );
  });
});
