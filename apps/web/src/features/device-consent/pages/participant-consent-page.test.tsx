import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { DEVICE_ERROR_REASONS, DEVICE_MESSAGES, GENERIC_ERROR_MESSAGE } from '@trialpulse/shared';
import { errorBody } from '@/testing/mock-api';
import { writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';
import {
  PARTICIPANT,
  PROVIDER_URL,
  TRIAL,
  mockDeviceApi,
  signedIn,
  stubLocationAssign,
  type Handlers,
} from '../test-fixtures';

type OpenOptions = { role?: string; state?: unknown; overrides?: Handlers };

function open(path: string, options: OpenOptions = {}) {
  const assign = stubLocationAssign();
  const api = mockDeviceApi(signedIn(options.role ?? 'User'), {
    'POST /api/deviceAuthorization': { body: { authorizeUrl: PROVIDER_URL } },
    'POST /api/participantConsentEmail': { body: { message: DEVICE_MESSAGES.consentEmailSent } },
    ...options.overrides,
  });
  const state = 'state' in options ? options.state : { participant: PARTICIPANT, trial: TRIAL };
  return { ...api, ...renderApp(path, { state }), assign };
}

const pageReady = () => screen.findByTestId('participant-consent-page');
const authorizeNow = () =>
  screen.getByRole('button', { name: 'Authorize now (participant present)' });
const sendEmail = () => screen.getByRole('button', { name: 'Send consent link' });
const posted = (calls: ReturnType<typeof open>['calls']) =>
  writes(calls).map((call) => [call.url, call.body]);

describe('/FitbitParticipantConsent', () => {
  it('shows the participant and, with the participant present, goes to the provider', async () => {
    const { calls, assign } = open('/FitbitParticipantConsent');
    await pageReady();
    expect(screen.getByTestId('participant-code').textContent).toBe('CARD-002');
    fireEvent.click(authorizeNow());

    await waitFor(() => expect(assign).toHaveBeenCalledWith(PROVIDER_URL));
    expect(posted(calls)).toEqual([
      ['/api/deviceAuthorization', { participantId: 2, brand: 'Fitbit' }],
    ]);
  });

  it('sends the consent email and confirms with a toast', async () => {
    const { calls, assign } = open('/FitbitParticipantConsent');
    await pageReady();
    fireEvent.click(sendEmail());

    expect((await screen.findByTestId('app-toast')).textContent).toContain(
      DEVICE_MESSAGES.consentEmailSent,
    );
    expect(posted(calls)).toEqual([
      ['/api/participantConsentEmail', { participantId: 2, brand: 'Fitbit' }],
    ]);
    expect(assign).not.toHaveBeenCalled();
  });

  it('shows a displayable server refusal', async () => {
    open('/FitbitParticipantConsent', {
      overrides: {
        'POST /api/participantConsentEmail': {
          status: 400,
          body: errorBody(DEVICE_MESSAGES.participantHasNoEmail, true, 'VALIDATION_ERROR'),
        },
      },
    });
    await pageReady();
    fireEvent.click(sendEmail());
    expect((await screen.findByTestId('participant-consent-error')).textContent).toBe(
      DEVICE_MESSAGES.participantHasNoEmail,
    );
    expect(screen.queryByTestId('app-toast')).toBeNull();
  });

  it('hides a server text not meant for users', async () => {
    const { assign } = open('/FitbitParticipantConsent', {
      overrides: {
        'POST /api/deviceAuthorization': { status: 500, body: errorBody('db down', false) },
        'POST /api/participantConsentEmail': { status: 500, body: errorBody('smtp', false) },
      },
    });
    await pageReady();
    fireEvent.click(authorizeNow());
    expect((await screen.findByTestId('participant-consent-error')).textContent).toBe(
      DEVICE_MESSAGES.somethingWentWrong,
    );
    fireEvent.click(sendEmail());
    await waitFor(() =>
      expect(screen.getByTestId('participant-consent-error').textContent).toBe(
        GENERIC_ERROR_MESSAGE,
      ),
    );
    expect(assign).not.toHaveBeenCalled();
  });

  it('names an unconfigured provider (503, by reason)', async () => {
    open('/FitbitParticipantConsent', {
      overrides: {
        'POST /api/deviceAuthorization': {
          status: 503,
          body: errorBody(GENERIC_ERROR_MESSAGE, false, DEVICE_ERROR_REASONS.providerNotConfigured),
        },
      },
    });
    await pageReady();
    fireEvent.click(authorizeNow());
    expect((await screen.findByTestId('participant-consent-error')).textContent).toBe(
      DEVICE_MESSAGES.providerNotConfigured,
    );
  });

  it('reads the participant from ?id= when opened without navigation state', async () => {
    const { calls } = open('/FitbitParticipantConsent?id=2', { state: null });
    await pageReady();
    expect(screen.getByTestId('participant-code').textContent).toBe('CARD-002');
    expect(calls.some((call) => call.url === '/api/participant/2')).toBe(true);
  });

  it('says so when no participant was opened', async () => {
    open('/FitbitParticipantConsent', { state: null });
    expect((await screen.findByTestId('participant-missing')).textContent).toContain(
      DEVICE_MESSAGES.participantNotFound,
    );
  });

  it('is closed to a Viewer', async () => {
    const { router } = open('/FitbitParticipantConsent', { role: 'Viewer' });
    await waitFor(() => expect(router.state.location.pathname).toBe('/not-authorized'));
  });
});

describe('/DexcomParticipantConsent', () => {
  it('offers only authorising in person, for Dexcom', async () => {
    const { calls, assign } = open('/DexcomParticipantConsent');
    await pageReady();
    expect(screen.queryByRole('button', { name: 'Send consent link' })).toBeNull();
    fireEvent.click(authorizeNow());

    await waitFor(() => expect(assign).toHaveBeenCalledWith(PROVIDER_URL));
    expect(posted(calls)).toEqual([
      ['/api/deviceAuthorization', { participantId: 2, brand: 'Dexcom' }],
    ]);
  });
});
