import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import { CONTACT_MESSAGES, EMAIL_MESSAGES, LIMITS, NAME_MESSAGES } from '@trialpulse/shared';
import {
  baseHandlers,
  decodeAltchaPayload,
  errorBody,
  makeUser,
  mockApi,
} from '@/testing/mock-api';
import { fill, submit, writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';

const VALID = {
  'First Name': 'Ada',
  'Last Name': 'Lovelace',
  Email: 'ada@example.org',
  Subject: 'Account request',
  Message: 'We would like an account for our sleep study team.',
};

async function open(overrides: Parameters<typeof mockApi>[0] = {}) {
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-out' }),
    'POST /api/contactUs': { body: { message: 'ok' } },
    ...overrides,
  });
  renderApp('/ContactUsForm/');
  await screen.findByRole('button', { name: 'Send Message' });
  return api;
}

function fillValid(overrides: Partial<Record<keyof typeof VALID, string>> = {}) {
  for (const [label, value] of Object.entries({ ...VALID, ...overrides })) fill(label, value);
}

describe('contact page', () => {
  afterEach(() => vi.useRealTimers());

  it('shows every required-field message and sends nothing', async () => {
    const { calls } = await open();
    submit('Send Message');

    expect(await screen.findByText(NAME_MESSAGES.firstRequired)).toBeTruthy();
    for (const message of [
      NAME_MESSAGES.lastRequired,
      EMAIL_MESSAGES.required,
      CONTACT_MESSAGES.subjectRequired,
      CONTACT_MESSAGES.messageRequired,
    ]) {
      expect(screen.getByText(message)).toBeTruthy();
    }
    expect(writes(calls)).toHaveLength(0);
  });

  it.each([
    ['First Name', 'A', NAME_MESSAGES.firstLength],
    ['Last Name', 'L', NAME_MESSAGES.lastLength],
    ['Email', 'ada@', EMAIL_MESSAGES.invalid],
    ['Subject', 'Hi', CONTACT_MESSAGES.subjectLength],
    ['Subject', 's'.repeat(51), CONTACT_MESSAGES.subjectLength],
    ['Message', 'Too short', CONTACT_MESSAGES.messageLength],
    ['Message', 'm'.repeat(301), CONTACT_MESSAGES.messageLength],
  ] as const)('%s "%s" → %s', async (label, value, message) => {
    const { calls } = await open();
    fillValid({ [label]: value });
    submit('Send Message');

    expect(await screen.findByText(message)).toBeTruthy();
    expect(writes(calls)).toHaveLength(0);
  });

  it('counts the message characters against 300', async () => {
    await open();
    fill('Message', 'Hello there');
    expect(screen.getByTestId('contact-message-counter').textContent).toBe('11/300');
  });

  it('sends the message with a token; the success text clears after 5 s', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { calls } = await open();
    fillValid();
    submit('Send Message');

    expect((await screen.findByTestId('contact-success')).textContent).toBe(CONTACT_MESSAGES.sent);
    const body = calls.find((call) => call.url === '/api/contactUs')?.body as Record<
      string,
      unknown
    >;
    expect(body).toMatchObject({
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.org',
      subject: 'Account request',
      message: VALID.Message,
    });
    expect(decodeAltchaPayload(body.recaptchaResponse)).toHaveProperty('number');
    expect((screen.getByLabelText('Message') as HTMLTextAreaElement).value).toBe('');

    await act(() => vi.advanceTimersByTimeAsync(LIMITS.contactSuccessClearMs - 1000));
    expect(screen.queryByTestId('contact-success')).not.toBeNull();
    await act(() => vi.advanceTimersByTimeAsync(1000));
    await waitFor(() => expect(screen.queryByTestId('contact-success')).toBeNull());
  });

  it('says the token failed when no human-check token can be had', async () => {
    const { calls } = await open({
      'GET /api/humanCheck/challenge': { status: 503, body: errorBody('down', false) },
    });
    fillValid();
    submit('Send Message');

    expect((await screen.findByTestId('contact-error')).textContent).toBe(
      CONTACT_MESSAGES.tokenFailed,
    );
    expect(writes(calls)).toHaveLength(0);
  });

  it.each([
    [{ status: 500, body: errorBody('smtp', false) }, CONTACT_MESSAGES.notSent],
    [
      { status: 429, body: errorBody('Too many messages. Try later.', true) },
      'Too many messages. Try later.',
    ],
  ])('failure %# shows the right text', async (reply, message) => {
    await open({ 'POST /api/contactUs': reply });
    fillValid();
    submit('Send Message');
    expect((await screen.findByTestId('contact-error')).textContent).toBe(message);
  });

  it('fills in the signed-in user’s name and email', async () => {
    mockApi(baseHandlers({ kind: 'signed-in', user: makeUser() }));
    renderApp('/ContactUsForm/');
    await screen.findByRole('button', { name: 'Send Message' });
    expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('ada@example.org');
    expect((screen.getByLabelText('First Name') as HTMLInputElement).value).toBe('Ada');
  });
});
