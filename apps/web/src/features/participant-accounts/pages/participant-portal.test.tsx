import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import {
  DEVICE_MESSAGES,
  PARTICIPANT_EMAIL_MESSAGES,
  type ConnectionStatus,
  type DeviceBrandName,
  type DeviceConnection,
  type PortalEnrolment,
} from '@trialpulse/shared';
import { baseHandlers, errorBody, mockApi } from '@/testing/mock-api';
import { fill, submit, writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';

type Handlers = Parameters<typeof mockApi>[0];

function linkOf(
  participantId: number,
  brand: DeviceBrandName,
  status: ConnectionStatus,
): DeviceConnection {
  return {
    participantId,
    participantCode: `SLEEP-00${participantId}`,
    trialId: 3,
    trialNumber: 'SLEEP-1',
    brand,
    upstream: null,
    status,
    authorizationDate: null,
    tokenExpiresAt: null,
    lastRefreshedAt: null,
    scopes: [],
  };
}

function enrolment(fitbit: ConnectionStatus, omron: ConnectionStatus): PortalEnrolment {
  return {
    participantId: 5,
    participantCode: 'SLEEP-005',
    trialName: 'Sleep Study',
    teamName: 'Sleep Lab',
    connections: [linkOf(5, 'Fitbit', fitbit), linkOf(5, 'Omron', omron)],
  };
}

const enrolments = (...list: PortalEnrolment[]) => ({ body: { enrolments: list } });

/** A participant already signed in: the enrolments answer at once. */
async function openPortal(overrides: Handlers = {}) {
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-out' }),
    'GET /api/Participants/me/enrolments': enrolments(enrolment('authorized', 'not_authorized')),
    ...overrides,
  });
  const app = renderApp('/ParticipantLoginPage');
  await screen.findByTestId('participant-portal', {}, { timeout: 60_000 });
  return { ...api, ...app };
}

const connectionRow = (brand: string) => screen.getByTestId(`portal-connection-5-${brand}`);

describe('participant portal', () => {
  it('shows a signed-in participant their enrolments and each brand’s status', async () => {
    await openPortal();
    const card = screen.getByTestId('portal-enrolment-5');
    expect(within(card).getByText('Sleep Study')).toBeTruthy();
    expect(within(card).getByText('Participant code: SLEEP-005 · Team: Sleep Lab')).toBeTruthy();
    expect(within(connectionRow('Fitbit')).getByText('Authorized')).toBeTruthy();
    expect(within(connectionRow('Fitbit')).queryByRole('button', { name: 'Authorize' })).toBeNull();
    expect(within(connectionRow('Fitbit')).getByRole('button', { name: 'Revoke' })).toBeTruthy();
    expect(within(connectionRow('Omron')).getByText('Not authorized')).toBeTruthy();
    expect(within(connectionRow('Omron')).queryByRole('button', { name: 'Revoke' })).toBeNull();
    expect(screen.queryByTestId('participant-login-form')).toBeNull();
  });

  it('lands on the portal after logging in', async () => {
    let signedIn = false;
    mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'GET /api/Participants/me/enrolments': () =>
        signedIn
          ? enrolments(enrolment('not_authorized', 'not_authorized'))
          : { status: 401, body: errorBody('Not signed in', false, 'UNAUTHENTICATED') },
      'POST /api/Participants/login': () => {
        signedIn = true;
        return { body: { message: 'Login successful' } };
      },
    });
    const { router } = renderApp('/ParticipantLoginPage');
    await screen.findByRole('button', { name: 'Log In' }, { timeout: 60_000 });
    fill('Username', 'walker');
    fill('Password', 'Walk!ng2024');
    submit('Log In');

    expect(await screen.findByTestId('participant-portal')).toBeTruthy();
    expect(screen.getByTestId('participant-login-success').textContent).toBe('Login successful');
    expect(router.state.location.pathname).toBe('/ParticipantLoginPage');
  });

  it('sends the browser to the provider on Authorize', async () => {
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, assign });
    const { calls } = await openPortal({
      'POST /api/Participants/me/deviceAuthorization': {
        body: { authorizeUrl: 'https://omron.example/authorize?state=xyz' },
      },
    });
    fireEvent.click(within(connectionRow('Omron')).getByRole('button', { name: 'Authorize' }));
    await waitFor(() =>
      expect(assign).toHaveBeenCalledWith('https://omron.example/authorize?state=xyz'),
    );
    expect(writes(calls).map((call) => [call.url, call.body])).toEqual([
      ['/api/Participants/me/deviceAuthorization', { participantId: 5, brand: 'Omron' }],
    ]);
  });

  it('says so when the authorisation cannot start', async () => {
    await openPortal({
      'POST /api/Participants/me/deviceAuthorization': {
        status: 500,
        body: errorBody('boom', false),
      },
    });
    fireEvent.click(within(connectionRow('Omron')).getByRole('button', { name: 'Authorize' }));
    expect((await screen.findByTestId('portal-action-error')).textContent).toBe(
      DEVICE_MESSAGES.authorizationFailed,
    );
  });

  it('revokes after confirming and shows the new status', async () => {
    let fitbit: ConnectionStatus = 'authorized';
    const { calls } = await openPortal({
      'GET /api/Participants/me/enrolments': () => enrolments(enrolment(fitbit, 'not_authorized')),
      'POST /api/Participants/me/deviceRevoke': () => {
        fitbit = 'revoked';
        return { body: { code: 200, message: 'revoked' } };
      },
    });
    fireEvent.click(within(connectionRow('Fitbit')).getByRole('button', { name: 'Revoke' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke Fitbit access?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }));

    await waitFor(() => expect(within(connectionRow('Fitbit')).getByText('Revoked')).toBeTruthy());
    expect((await screen.findByTestId('app-toast')).textContent).toContain(DEVICE_MESSAGES.revoked);
    expect(writes(calls).map((call) => [call.url, call.body])).toEqual([
      ['/api/Participants/me/deviceRevoke', { participantId: 5, brand: 'Fitbit' }],
    ]);
  });

  it('keeps the dialog open with the spec text when the revoke fails', async () => {
    await openPortal({
      'POST /api/Participants/me/deviceRevoke': { status: 500, body: errorBody('boom', false) },
    });
    fireEvent.click(within(connectionRow('Fitbit')).getByRole('button', { name: 'Revoke' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke Fitbit access?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    expect((await within(dialog).findByTestId('portal-revoke-error')).textContent).toBe(
      DEVICE_MESSAGES.revokeFailed,
    );
  });
});

describe('participant email confirmation', () => {
  it('an unconfirmed account is told why no study shows and can ask for a new link', async () => {
    const { calls } = mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'GET /api/Participants/me/enrolments': enrolments(),
      'GET /api/Participants/me': {
        body: { email: 'p@example.org', participantCount: 0, emailVerified: false },
      },
      'POST /api/Participants/me/verificationEmail': {
        body: { message: PARTICIPANT_EMAIL_MESSAGES.verificationSent },
      },
    });
    renderApp('/ParticipantLoginPage');
    const notice = await screen.findByTestId('email-unconfirmed', {}, { timeout: 60_000 });
    expect(notice.textContent).toContain(PARTICIPANT_EMAIL_MESSAGES.pleaseVerify);
    fireEvent.click(
      within(notice).getByRole('button', { name: 'Send the confirmation email again' }),
    );
    expect((await screen.findByTestId('email-confirmation-sent')).textContent).toBe(
      PARTICIPANT_EMAIL_MESSAGES.verificationSent,
    );
    expect(writes(calls).map((call) => call.url)).toContain(
      '/api/Participants/me/verificationEmail',
    );
  });

  it('a confirmed account sees no notice', async () => {
    await openPortal({
      'GET /api/Participants/me': {
        body: { email: 'p@example.org', participantCount: 1, emailVerified: true },
      },
    });
    expect(screen.queryByTestId('email-unconfirmed')).toBeNull();
  });

  it('the emailed link confirms the address once and says so', async () => {
    const { calls } = mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'POST /api/Participants/verifyEmail': {
        body: { message: PARTICIPANT_EMAIL_MESSAGES.verified },
      },
    });
    renderApp('/ParticipantLoginPage?verifyEmail=tok-123');
    expect(
      (await screen.findByTestId('email-confirmation-result', {}, { timeout: 60_000 })).textContent,
    ).toBe(PARTICIPANT_EMAIL_MESSAGES.verified);
    const posts = writes(calls).filter((call) => call.url === '/api/Participants/verifyEmail');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body).toEqual({ token: 'tok-123' });
  });

  it('a bad link says it is invalid', async () => {
    mockApi({
      ...baseHandlers({ kind: 'signed-out' }),
      'POST /api/Participants/verifyEmail': {
        status: 400,
        body: errorBody(PARTICIPANT_EMAIL_MESSAGES.verificationInvalid, true),
      },
    });
    renderApp('/ParticipantLoginPage?verifyEmail=tok-bad');
    expect(
      (await screen.findByTestId('email-confirmation-result', {}, { timeout: 60_000 })).textContent,
    ).toBe(PARTICIPANT_EMAIL_MESSAGES.verificationInvalid);
  });
});
