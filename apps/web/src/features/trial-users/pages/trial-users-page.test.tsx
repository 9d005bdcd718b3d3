import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { EMAIL_MESSAGES, TRIAL_USER_MESSAGES, type Trial } from '@trialpulse/shared';
import { baseHandlers, errorBody, makeUser, mockApi } from '@/testing/mock-api';
import { fieldErrors, writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';

const TRIAL: Trial = {
  trialId: 11,
  trialNumber: 'CARD-01',
  trialName: 'Cardio One',
  trialNotes: '',
  trialOwnerEmail: 'ada@example.org',
  teamId: 1,
  creationDate: '2025-01-02T10:00:00.000Z',
};

const USERS = [
  { id: 7, email: 'ada@example.org', isOwner: true },
  { id: 9, email: 'grace@example.org', isOwner: false },
];

const TEAM_USERS = [
  { id: 21, email: 'alan@example.org' },
  { id: 22, email: 'not-an-email' },
];

async function open(overrides: Parameters<typeof mockApi>[0] = {}) {
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'Admin' }) }),
    'GET /api/trialUsers/11': { body: USERS },
    'GET /api/teamUsers/11': { body: TEAM_USERS },
    'POST /api/trialUsers': {
      body: { message: 'User added', data: { userId: 21, userEmail: 'alan@example.org' } },
    },
    'DELETE /api/trialUsers': { body: { message: 'User removed' } },
    ...overrides,
  });
  renderApp('/TrialUsers', { state: { trial: TRIAL } });
  // The first render loads the lazy page and the table library: slow on a cold module graph.
  await screen.findByText('grace@example.org', {}, { timeout: 60_000 });
  return api;
}

async function addUser(email: string) {
  fireEvent.click(screen.getByTestId('add-trial-user-button'));
  const dialog = await screen.findByRole('dialog', { name: 'Add User' });
  const select = await within(dialog).findByLabelText('User Email');
  fireEvent.change(select, { target: { value: email } });
  fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
  return dialog;
}

async function deleteUser(id: number) {
  fireEvent.click(screen.getByTestId(`trial-user-delete-${id}`));
  const dialog = await screen.findByRole('dialog', { name: 'Delete User?' });
  fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
  return dialog;
}

describe('/TrialUsers', () => {
  it('lists the users; the owner row says Trial Owner instead of delete', async () => {
    await open();
    expect(screen.getByTestId('trial-users-trial').textContent).toBe(
      'Trial: #CARD-01 - Cardio One',
    );
    expect(screen.getByTestId('trial-owner-7').textContent).toBe('Trial Owner');
    expect(screen.queryByTestId('trial-user-delete-7')).toBeNull();
    expect(screen.getByTestId('trial-user-delete-9')).toBeTruthy();
  });

  it('adds a team user chosen by email and updates the list', async () => {
    const { calls } = await open();
    fireEvent.click(screen.getByTestId('add-trial-user-button'));
    const dialog = await screen.findByRole('dialog', { name: 'Add User' });
    expect((within(dialog).getByLabelText('Trial Number') as HTMLInputElement).readOnly).toBe(true);
    expect((within(dialog).getByLabelText('Trial Name') as HTMLInputElement).value).toBe(
      'Cardio One',
    );
    const select = (await within(dialog).findByLabelText('User Email')) as HTMLSelectElement;
    expect(Array.from(select.options).map((option) => option.value)).toEqual([
      '',
      'alan@example.org',
      'not-an-email',
    ]);

    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(fieldErrors()).toEqual([EMAIL_MESSAGES.required]));
    fireEvent.change(select, { target: { value: 'not-an-email' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(fieldErrors()).toEqual([EMAIL_MESSAGES.invalid]));
    expect(writes(calls)).toHaveLength(0);

    fireEvent.change(select, { target: { value: 'alan@example.org' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

    const added = await screen.findByTestId('trial-user-delete-21');
    expect(added.getAttribute('aria-label')).toBe('Delete user alan@example.org');
    expect(writes(calls).map((call) => [call.method, call.url, call.body])).toEqual([
      ['POST', '/api/trialUsers', { userEmail: 'alan@example.org', trialId: 11 }],
    ]);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Add User' })).toBeNull());
  });

  it.each([
    ['the fallback text', errorBody('db down', false), TRIAL_USER_MESSAGES.addFailed],
    [
      'the server message in the spec form',
      errorBody(TRIAL_USER_MESSAGES.alreadyInTrial, true, 'CONFLICT'),
      `Error:  ${TRIAL_USER_MESSAGES.alreadyInTrial}!`,
    ],
  ])('shows %s in a closable banner when adding fails', async (_label, body, text) => {
    await open({ 'POST /api/trialUsers': { status: 409, body } });
    await addUser('alan@example.org');

    const banner = await screen.findByTestId('trial-users-error');
    expect(banner.textContent).toBe(text);
    fireEvent.click(within(banner).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByTestId('trial-users-error')).toBeNull());
  });

  it('says the display is wrong when the answer lacks the added user', async () => {
    await open({ 'POST /api/trialUsers': { body: { message: 'User added' } } });
    await addUser('alan@example.org');
    expect((await screen.findByTestId('trial-users-error')).textContent).toBe(
      TRIAL_USER_MESSAGES.addedDisplayWrong,
    );
  });

  it('shows id and email in Delete User? and removes the user', async () => {
    const { calls } = await open();
    fireEvent.click(screen.getByTestId('trial-user-delete-9'));
    const dialog = await screen.findByRole('dialog', { name: 'Delete User?' });
    expect((within(dialog).getByLabelText('User Id') as HTMLInputElement).value).toBe('9');
    expect((within(dialog).getByLabelText('User Email') as HTMLInputElement).value).toBe(
      'grace@example.org',
    );
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));

    await waitFor(() => expect(screen.queryByText('grace@example.org')).toBeNull());
    expect(writes(calls).map((call) => [call.method, call.url, call.body])).toEqual([
      ['DELETE', '/api/trialUsers', { userId: 9, userEmail: 'grace@example.org', trialId: 11 }],
    ]);
  });

  it.each([
    ['the fallback text', errorBody('x', false), TRIAL_USER_MESSAGES.deleteFailed],
    [
      'the server message',
      errorBody(TRIAL_USER_MESSAGES.ownerCannotBeRemoved, true, 'CONFLICT'),
      TRIAL_USER_MESSAGES.ownerCannotBeRemoved,
    ],
  ])('shows %s when deleting fails', async (_label, body, text) => {
    await open({ 'DELETE /api/trialUsers': { status: 409, body } });
    await deleteUser(9);
    expect((await screen.findByTestId('trial-users-error')).textContent).toBe(text);
    expect(screen.getByText('grace@example.org')).toBeTruthy();
  });

  it('says trial and users could not be found when loading fails', async () => {
    mockApi({
      ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'Admin' }) }),
      'GET /api/trialUsers/11': { status: 500, body: errorBody('x', false) },
    });
    renderApp('/TrialUsers', { state: { trial: TRIAL } });
    expect((await screen.findByTestId('trial-users-error')).textContent).toBe(
      TRIAL_USER_MESSAGES.notFound,
    );
    expect(screen.queryByTestId('trial-users-table')).toBeNull();
  });

  it('says the same without a trial', async () => {
    mockApi(baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'Admin' }) }));
    renderApp('/TrialUsers');
    expect((await screen.findByTestId('trial-users-error')).textContent).toBe(
      TRIAL_USER_MESSAGES.notFound,
    );
  });

  it('is closed to a User', async () => {
    mockApi(baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'User' }) }));
    const { router } = renderApp('/TrialUsers', { state: { trial: TRIAL } });
    expect(await screen.findByRole('heading', { name: '403 Error - Not Authorized' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/not-authorized');
  });
});
