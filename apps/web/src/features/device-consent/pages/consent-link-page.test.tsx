import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { DEVICE_MESSAGES } from '@trialpulse/shared';
import { errorBody } from '@/testing/mock-api';
import { writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';
import {
  PROVIDER_URL,
  SIGNED_OUT,
  mockDeviceApi,
  stubLocationAssign,
  type Handlers,
} from '../test-fixtures';

function open(path: string, overrides: Handlers = {}) {
  const assign = stubLocationAssign();
  const api = mockDeviceApi(SIGNED_OUT, {
    'POST /api/consentLinkAuthorize': { body: { authorizeUrl: PROVIDER_URL } },
    ...overrides,
  });
  renderApp(path);
  return { ...api, assign };
}

const authorizeButton = () => screen.findByRole('button', { name: 'Authorize Access' });

describe('consent link pages', () => {
  it.each([
    ['/PAFitbitConsentPage', 'Fitbit'],
    ['/OmronConsentPage', 'Omron'],
  ])('%s posts the link and sends the browser to the provider', async (path, brand) => {
    const { calls, assign } = open(`${path}?id=5&token=tok-1`);
    fireEvent.click(await authorizeButton());

    await waitFor(() => expect(assign).toHaveBeenCalledWith(PROVIDER_URL));
    expect(assign).toHaveBeenCalledTimes(1);
    const posted = writes(calls);
    expect(posted.map((call) => [call.method, call.url, call.body])).toEqual([
      ['POST', '/api/consentLinkAuthorize', { participantId: 5, token: 'tok-1', brand }],
    ]);
    expect(posted[0]?.headers.get('x-csrf-token')).toBe('csrf-1');
    expect(screen.getByRole('button', { name: 'Authorize Access' }).hasAttribute('disabled')).toBe(
      true,
    );
  });

  it('explains what the study team asks for', async () => {
    open('/OmronConsentPage?id=5&token=tok-1');
    await authorizeButton();
    expect(screen.getByText(/asks for your permission/).textContent).toContain('Omron');
  });

  it('Cancel shows the canceled message, hides the buttons and sends nothing', async () => {
    const { calls, assign } = open('/PAFitbitConsentPage?id=5&token=tok-1');
    await authorizeButton();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));

    expect((await screen.findByTestId('authorization-canceled')).textContent).toBe(
      DEVICE_MESSAGES.canceled,
    );
    expect(screen.queryByRole('button', { name: 'Authorize Access' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Cancel' })).toBeNull();
    expect(writes(calls)).toHaveLength(0);
    expect(assign).not.toHaveBeenCalled();
  });

  it.each(['?token=tok-1', '?id=5', '?id=abc&token=tok-1', ''])(
    'a link without a usable id and token (%s) is invalid and sends nothing',
    async (query) => {
      const { calls } = open(`/PAFitbitConsentPage${query}`);
      expect((await screen.findByTestId('consent-link-error')).textContent).toBe(
        DEVICE_MESSAGES.consentLinkInvalid,
      );
      expect(screen.queryByRole('button', { name: 'Authorize Access' })).toBeNull();
      expect(writes(calls)).toHaveLength(0);
    },
  );

  it('shows the server refusal of a wrong or expired link and drops the buttons', async () => {
    const { assign } = open('/OmronConsentPage?id=5&token=old', {
      'POST /api/consentLinkAuthorize': {
        status: 400,
        body: errorBody(DEVICE_MESSAGES.consentLinkInvalid, true, 'VALIDATION_ERROR'),
      },
    });
    fireEvent.click(await authorizeButton());

    expect((await screen.findByTestId('consent-link-error')).textContent).toBe(
      DEVICE_MESSAGES.consentLinkInvalid,
    );
    expect(screen.queryByRole('button', { name: 'Authorize Access' })).toBeNull();
    expect(assign).not.toHaveBeenCalled();
  });

  it('keeps the buttons after a server failure with nothing displayable', async () => {
    open('/PAFitbitConsentPage?id=5&token=tok-1', {
      'POST /api/consentLinkAuthorize': { status: 500, body: errorBody('boom', false) },
    });
    fireEvent.click(await authorizeButton());

    expect((await screen.findByTestId('consent-link-error')).textContent).toBe(
      DEVICE_MESSAGES.somethingWentWrong,
    );
    expect(screen.getByRole('button', { name: 'Authorize Access' })).toBeTruthy();
  });
});
