import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { PARTICIPANT_MESSAGES, type ParticipantRaw } from '@trialpulse/shared';
import { errorBody } from '@/testing/mock-api';
import { writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';
import type { SessionUser } from '@/lib/session';
import { TRIAL, mockParticipantsApi, participant, type Handlers } from '../test-fixtures';

const P2 = participant(2);

const RAW: ParticipantRaw = {
  id: 2,
  team_id: 1,
  trial_id: 11,
  participant_code: 'CARD-002',
  participant_code_suffix: '002',
  email: 'p2@example.org',
  gender: 'female',
  age: 32,
  notes: 'note 2',
  created_at: '2025-02-01T10:00:00.000Z',
  updated_at: '2025-02-01T10:00:00.000Z',
  hidden_fields: [],
};

async function openParticipantPage(
  role = 'User',
  overrides: Handlers = {},
  user: Partial<SessionUser> = {},
) {
  const api = mockParticipantsApi(
    role,
    {
      'GET /api/participant/2': { body: P2 },
      'GET /api/participant/2/raw': { body: RAW },
      'DELETE /api/participant': { body: { message: 'The participant has been deleted.' } },
      ...overrides,
    },
    user,
  );
  const app = renderApp('/Participant', { state: { participant: P2, trial: TRIAL } });
  return { ...api, ...app };
}

const pageReady = () => screen.findByTestId('participant-page', {}, { timeout: 60_000 });

const pressCtrlShiftQ = () =>
  fireEvent.keyDown(window, { key: 'Q', code: 'KeyQ', ctrlKey: true, shiftKey: true });

describe('/Participant', () => {
  it('shows ID, code, email and one section per allowed brand', async () => {
    await openParticipantPage();
    await pageReady();
    expect(screen.getByTestId('participant-id').textContent).toBe('2');
    expect(screen.getByTestId('participant-code').textContent).toBe('CARD-002');
    expect(screen.getByTestId('participant-email').textContent).toBe('p2@example.org');
    const fitbit = await screen.findByTestId('device-section-Fitbit');
    expect(within(fitbit).getByText('Fitbit')).toBeTruthy();
    // The device sections (devices feature) read the connections first.
    expect(await within(fitbit).findByText('Not authorized')).toBeTruthy();
    expect(
      await within(screen.getByTestId('device-section-Omron')).findByText('Not authorized'),
    ).toBeTruthy();
    expect(screen.queryByTestId('device-section-Dexcom')).toBeNull();
  });

  it('leaves out the email when the team hides it', async () => {
    await openParticipantPage(
      'User',
      { 'GET /api/participant/2': { body: participant(2, { email: undefined }) } },
      { hiddenFields: ['email'] },
    );
    await pageReady();
    await screen.findByTestId('device-section-Fitbit');
    expect(screen.queryByTestId('participant-email')).toBeNull();
  });

  it('says so when the devices cannot be loaded', async () => {
    await openParticipantPage('User', {
      'GET /api/teamAllowedDevices/1': { status: 500, body: errorBody('x', false) },
    });
    expect((await screen.findByTestId('devices-error')).textContent).toBe('Error loading devices.');
  });

  it('shows the not-found text for an unknown participant', async () => {
    await openParticipantPage('User', {
      'GET /api/participant/2': {
        status: 404,
        body: errorBody(PARTICIPANT_MESSAGES.notFound, true, 'NOT_FOUND'),
      },
    });
    expect(
      await screen.findByText(PARTICIPANT_MESSAGES.notFound, {}, { timeout: 60_000 }),
    ).toBeTruthy();
  });

  it('shows the not-found text when no participant was opened', async () => {
    mockParticipantsApi('User');
    renderApp('/Participant');
    expect(
      await screen.findByText(PARTICIPANT_MESSAGES.notFound, {}, { timeout: 60_000 }),
    ).toBeTruthy();
  });

  it('reads the participant stored locally after a reload', async () => {
    localStorage.setItem('tp.currentParticipant', JSON.stringify(P2));
    mockParticipantsApi('User', { 'GET /api/participant/2': { body: P2 } });
    renderApp('/Participant');
    await pageReady();
    expect(screen.getByTestId('participant-code').textContent).toBe('CARD-002');
  });

  it('deletes after Delete Participant? and returns to the trial page', async () => {
    const { calls, router } = await openParticipantPage();
    await pageReady();
    fireEvent.click(screen.getByTestId('participant-delete-button'));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Participant?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await screen.findByTestId('trial-page');
    expect(router.state.location.pathname).toBe('/TrialPage');
    expect(router.state.location.state).toEqual({ trial: TRIAL });
    expect(writes(calls).map((call) => [call.method, call.url, call.body])).toEqual([
      ['DELETE', '/api/participant', { id: 2 }],
    ]);
  });

  it('opens /ParticipantRaw on Ctrl+Shift+Q for Sys_Admin, showing the stored record', async () => {
    const { router } = await openParticipantPage('Sys_Admin');
    await pageReady();
    // The raw page is a lazy route: load its module first, so the wait below is for the
    // navigation and the record, not for the module's first transform on a busy machine
    // (this wait once ran out in CI while another test run shared the machine).
    await import('./participant-raw-page');
    pressCtrlShiftQ();
    const json = await screen.findByTestId('participant-raw-json', {}, { timeout: 60_000 });
    expect(router.state.location.pathname).toBe('/ParticipantRaw');
    expect(router.state.location.state).toEqual({ participant: P2, trial: TRIAL });
    expect(JSON.parse(json.textContent ?? '')).toEqual(RAW);
    expect(json.textContent).toBe(JSON.stringify(RAW, null, 2));
  });

  it.each(['User', 'Admin'])('does nothing on Ctrl+Shift+Q for a %s', async (role) => {
    const { router, calls } = await openParticipantPage(role);
    await pageReady();
    pressCtrlShiftQ();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(router.state.location.pathname).toBe('/Participant');
    expect(calls.some((call) => call.url.endsWith('/raw'))).toBe(false);
  });

  it('the Fitbit data link opens /FitbitParticipantDataPage with the participant and the trial', async () => {
    const { router } = await openParticipantPage();
    await pageReady();
    const link = screen.getByTestId('participant-fitbit-data-link');
    expect(link.textContent).toBe('Fitbit data');
    fireEvent.click(link);
    await screen.findByTestId('fitbit-data-page', {}, { timeout: 60_000 });
    expect(router.state.location.pathname).toBe('/FitbitParticipantDataPage');
    expect(router.state.location.state).toMatchObject({ participant: P2, trial: TRIAL });
    expect(screen.getByText('Fitbit data: CARD-002')).toBeTruthy();
  });

  it('is closed to a Viewer', async () => {
    const { router } = await openParticipantPage('Viewer');
    await waitFor(() => expect(router.state.location.pathname).toBe('/not-authorized'), {
      timeout: 60_000,
    });
  });
});

describe('/ParticipantRaw', () => {
  it('shows the not-found text when the record is gone', async () => {
    mockParticipantsApi('Sys_Admin', {
      'GET /api/participant/2/raw': {
        status: 404,
        body: errorBody(PARTICIPANT_MESSAGES.notFound, true, 'NOT_FOUND'),
      },
    });
    renderApp('/ParticipantRaw', { state: { participant: P2 } });
    expect(
      (await screen.findByTestId('participant-raw-error', {}, { timeout: 60_000 })).textContent,
    ).toBe(PARTICIPANT_MESSAGES.notFound);
  });

  it('is closed to an Admin', async () => {
    mockParticipantsApi('Admin');
    const { router } = renderApp('/ParticipantRaw', { state: { participant: P2 } });
    await waitFor(() => expect(router.state.location.pathname).toBe('/not-authorized'), {
      timeout: 60_000,
    });
  });
});
