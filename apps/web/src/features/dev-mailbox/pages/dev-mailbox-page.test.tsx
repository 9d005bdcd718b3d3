import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { baseHandlers, mockApi } from '@/testing/mock-api';
import { renderApp } from '@/testing/render-app';

const MAILS = [
  {
    id: 1,
    to: 'old@example.org',
    subject: 'Older mail',
    text: 'Hello',
    html: null,
    template: 'contact',
    status: 'sent',
    createdAt: '2026-01-01T10:00:00.000Z',
  },
  {
    id: 2,
    to: 'ada@example.org',
    subject: 'Reset your password',
    text: 'Open http://localhost:3000/ResetPasswordPage?token=abc to continue.',
    html: '<p>ignored</p>',
    template: 'reset-password',
    status: 'sent',
    createdAt: '2026-01-02T10:00:00.000Z',
  },
];

describe('demo mailbox', () => {
  it('lists the mails newest first with clickable links', async () => {
    mockApi({ ...baseHandlers({ kind: 'signed-out' }), 'GET /api/dev/mailbox': { body: MAILS } });
    renderApp('/DevMailbox');

    const mails = await screen.findAllByTestId('dev-mail');
    expect(mails.map((mail) => within(mail).getByRole('heading').textContent)).toEqual([
      'Reset your password',
      'Older mail',
    ]);
    const link = within(mails[0]!).getByRole('link');
    expect(link.getAttribute('href')).toBe('http://localhost:3000/ResetPasswordPage?token=abc');
    expect(within(mails[0]!).getByTestId('dev-mail-to').textContent).toBe('ada@example.org');
  });

  it('is an ordinary 404 page when the server is not in demo mode', async () => {
    mockApi(baseHandlers({ kind: 'signed-out' }));
    renderApp('/DevMailbox');

    expect(await screen.findByRole('heading', { name: '404 Error - page not found' })).toBeTruthy();
    expect(screen.queryByTestId('dev-mailbox-page')).toBeNull();
  });

  it('is linked from the second-factor pages in demo mode', async () => {
    mockApi({
      ...baseHandlers({ kind: 'second-factor', authStatus: 'SFAValidateEmailCodeNeeded' }),
      'GET /api/dev/mailbox': { body: [] },
    });
    renderApp('/SFASendCodeViaMsgPage');

    expect((await screen.findByTestId('dev-mailbox-link')).getAttribute('href')).toBe(
      '/DevMailbox',
    );
  });
});
