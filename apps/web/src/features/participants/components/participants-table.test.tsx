import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { LIMITS, PARTICIPANT_MESSAGES, findRoute, type Participant } from '@trialpulse/shared';
import { errorBody, type RecordedCall } from '@/testing/mock-api';
import { writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';
import type { SessionUser } from '@/lib/session';
import { TRIAL, mockParticipantsApi, participant, type Handlers } from '../test-fixtures';

async function openTrialPage(
  role = 'User',
  overrides: Handlers = {},
  user: Partial<SessionUser> = {},
  path = '/TrialPage',
) {
  const api = mockParticipantsApi(role, overrides, user);
  const app = renderApp(path, { state: { trial: TRIAL } });
  // The first render loads the lazy page and the table library: slow on a cold module graph.
  await screen.findByTestId('participants-table', {}, { timeout: 60_000 });
  return { ...api, ...app };
}

const many = (count: number) => Array.from({ length: count }, (_, index) => participant(index + 1));

function checkbox(id: number): HTMLInputElement {
  return within(screen.getByTestId(`participant-row-${id}`)).getByRole('checkbox');
}

const headers = () =>
  Array.from(document.querySelectorAll('thead th')).map((cell) => cell.textContent?.trim() ?? '');

const writesTo = (calls: RecordedCall[]) =>
  writes(calls).map((call) => [call.method, call.url, call.body]);

beforeEach(() => sessionStorage.clear());

describe('participants table on /TrialPage', () => {
  it('keeps the trial header and lists code, email, gender, age, notes and device status', async () => {
    await openTrialPage('User');
    await screen.findByTestId('participant-row-1');
    expect(screen.getByTestId('trial-title').textContent).toBe('Trial: #CARD-01 - Cardio One');
    expect(screen.queryByTestId('trial-participants-placeholder')).toBeNull();
    const cols = headers();
    for (const header of ['Code', 'Email', 'Gender', 'Age', 'Notes', 'Device Status', 'Actions']) {
      expect(cols.some((text) => text.startsWith(header))).toBe(true);
    }
    const row = screen.getByTestId('participant-row-2');
    expect(within(row).getByText('CARD-002')).toBeTruthy();
    expect(within(row).getByText('p2@example.org')).toBeTruthy();
    expect(within(row).getByText('32')).toBeTruthy();
    expect(within(row).getByText('note 2')).toBeTruthy();
    await waitFor(() =>
      expect(screen.getByTestId('participant-device-status-2').textContent).toBe(
        'FitbitNot authorizedOmronNot authorized',
      ),
    );
  });

  it('leaves out the email and notes columns when the team hides them', async () => {
    await openTrialPage(
      'User',
      {
        'GET /api/trialParticipants/11': {
          body: [participant(1, { email: undefined, notes: null })],
        },
      },
      { hiddenFields: ['email', 'notes'] },
    );
    await screen.findByTestId('participant-row-1');
    const cols = headers();
    expect(cols.some((text) => text.startsWith('Email'))).toBe(false);
    expect(cols.some((text) => text.startsWith('Notes'))).toBe(false);
    expect(cols.some((text) => text.startsWith('Code'))).toBe(true);
  });

  it('shows the empty text when the trial has no participants', async () => {
    await openTrialPage('User', { 'GET /api/trialParticipants/11': { body: [] } });
    expect(await screen.findByText(PARTICIPANT_MESSAGES.noParticipants)).toBeTruthy();
  });

  it('gives a Viewer no participant actions', async () => {
    await openTrialPage('Viewer');
    await screen.findByTestId('participant-row-1');
    expect(screen.queryByTestId('add-participant-button')).toBeNull();
    expect(screen.queryByTestId('edit-participant-button')).toBeNull();
    expect(screen.queryByTestId('participant-manage-1')).toBeNull();
    expect(screen.queryByTestId('participant-delete-1')).toBeNull();
  });

  it.each(['User', 'Admin', 'Sys_Admin'])('gives a %s every participant action', async (role) => {
    await openTrialPage(role);
    await screen.findByTestId('participant-row-1');
    expect(screen.getByTestId('add-participant-button').textContent).toBe('Add New Participant');
    expect(screen.getByTestId('edit-participant-button').textContent).toBe('Edit Participant');
    expect(screen.getByTestId('participant-manage-1').textContent).toBe('Manage Participant');
    expect(screen.getByTestId('participant-delete-2')).toBeTruthy();
  });

  it('opens /AddParticipantPage with the trial in the navigation state', async () => {
    const { router } = await openTrialPage('User');
    fireEvent.click(screen.getByTestId('add-participant-button'));
    await screen.findByTestId('add-participant-page');
    expect(router.state.location.pathname).toBe('/AddParticipantPage');
    expect(router.state.location.state).toEqual({ trial: TRIAL });
  });

  it('opens /Participant with the participant and the trial', async () => {
    const { router } = await openTrialPage('User', {
      'GET /api/participant/2': { body: participant(2) },
    });
    fireEvent.click(await screen.findByTestId('participant-manage-2'));
    await screen.findByTestId('participant-page');
    expect(router.state.location.pathname).toBe('/Participant');
    expect(router.state.location.state).toEqual({ participant: participant(2), trial: TRIAL });
  });

  it('enables Edit Participant only while exactly one row is selected', async () => {
    await openTrialPage('User');
    await screen.findByTestId('participant-row-1');
    const edit = screen.getByTestId('edit-participant-button') as HTMLButtonElement;
    expect(edit.disabled).toBe(true);
    fireEvent.click(checkbox(1));
    await waitFor(() => expect(edit.disabled).toBe(false));
    fireEvent.click(checkbox(2));
    await waitFor(() => expect(edit.disabled).toBe(true));
    fireEvent.click(checkbox(1));
    await waitFor(() => expect(edit.disabled).toBe(false));
    fireEvent.click(edit);
    const dialog = await screen.findByRole('dialog', { name: 'Edit Participant' });
    expect(within(dialog).getByTestId('edit-participant-current-code').textContent).toBe(
      'Current code: CARD-002',
    );
  });

  it(`caps the selection at ${LIMITS.multiRowSelectionCap} rows`, async () => {
    sessionStorage.setItem(
      'tp.table.participants.11',
      JSON.stringify({ pageIndex: 0, pageSize: 20, sorting: [], globalFilter: '' }),
    );
    await openTrialPage('User', { 'GET /api/trialParticipants/11': { body: many(12) } });
    await screen.findByTestId('participant-row-12');
    expect(screen.getByTestId('participants-table').dataset.selectionCap).toBe('10');
    for (let id = 1; id <= 10; id += 1) fireEvent.click(checkbox(id));
    await waitFor(() => expect(checkbox(11).disabled).toBe(true));
    expect(checkbox(12).disabled).toBe(true);
    expect(checkbox(10).checked).toBe(true);
    expect(screen.getByTestId('participants-selection-cap').textContent).toBe(
      'At most 10 participants can be selected at once.',
    );
    fireEvent.click(checkbox(11));
    expect(checkbox(11).checked).toBe(false);
    fireEvent.click(checkbox(3));
    await waitFor(() => expect(checkbox(11).disabled).toBe(false));
  });

  it('keeps page, sort and filter in session storage per trial, and restores a valid state', async () => {
    sessionStorage.setItem(
      'tp.table.participants.11',
      JSON.stringify({ pageIndex: 1, pageSize: 10, sorting: [], globalFilter: '' }),
    );
    await openTrialPage('User', { 'GET /api/trialParticipants/11': { body: many(12) } });
    expect(await screen.findByTestId('participant-row-11')).toBeTruthy();
    expect(screen.queryByTestId('participant-row-1')).toBeNull();

    fireEvent.change(screen.getByLabelText('Search participants'), {
      target: { value: 'CARD-012' },
    });
    await waitFor(() =>
      expect(JSON.parse(sessionStorage.getItem('tp.table.participants.11') ?? '{}')).toEqual({
        pageIndex: 0,
        pageSize: 10,
        sorting: [],
        globalFilter: 'CARD-012',
      }),
    );
    await waitFor(() => expect(screen.queryByTestId('participant-row-11')).toBeNull());
    expect(screen.getByTestId('participant-row-12')).toBeTruthy();
  });

  it('ignores a saved state that breaks the rules', async () => {
    sessionStorage.setItem(
      'tp.table.participants.11',
      JSON.stringify({ pageIndex: 10_000, pageSize: 10, sorting: [], globalFilter: '' }),
    );
    await openTrialPage('User', { 'GET /api/trialParticipants/11': { body: many(12) } });
    expect(await screen.findByTestId('participant-row-1')).toBeTruthy();
  });

  it('deletes a participant after Delete Participant? and refreshes the list', async () => {
    let rows: Participant[] = [participant(1), participant(2)];
    const { calls } = await openTrialPage('User', {
      'GET /api/trialParticipants/11': () => ({ body: rows }),
      'DELETE /api/participant': () => {
        rows = [participant(1)];
        return { body: { message: 'The participant has been deleted.' } };
      },
    });
    fireEvent.click(await screen.findByTestId('participant-delete-2'));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Participant?' });
    expect(within(dialog).getByText('CARD-002')).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByTestId('participant-row-2')).toBeNull());
    expect(writesTo(calls)).toEqual([['DELETE', '/api/participant', { id: 2 }]]);
    expect((await screen.findByTestId('app-toast')).textContent).toContain(
      'The participant has been deleted.',
    );
  });

  it('shows the spec text when deleting fails', async () => {
    await openTrialPage('User', {
      'DELETE /api/participant': { status: 500, body: errorBody('x', false) },
    });
    fireEvent.click(await screen.findByTestId('participant-delete-1'));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Participant?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect((await within(dialog).findByTestId('delete-participant-error')).textContent).toBe(
      PARTICIPANT_MESSAGES.deleteFailed,
    );
    expect(screen.getByTestId('participant-row-1')).toBeTruthy();
  });
});

describe('/ParticipantsPage (the older table)', () => {
  it(`caps the selection at ${LIMITS.olderParticipantsTableSelectionCap} rows`, async () => {
    await openTrialPage(
      'User',
      { 'GET /api/trialParticipants/11': { body: many(6) } },
      {},
      '/ParticipantsPage',
    );
    expect(screen.getByTestId('participants-page-trial').textContent).toBe(
      'Trial: #CARD-01 - Cardio One',
    );
    await screen.findByTestId('participant-row-6');
    expect(screen.getByTestId('participants-table').dataset.selectionCap).toBe('4');
    for (let id = 1; id <= 4; id += 1) fireEvent.click(checkbox(id));
    await waitFor(() => expect(checkbox(5).disabled).toBe(true));
    expect(checkbox(4).checked).toBe(true);
    expect(screen.getByTestId('add-participant-button')).toBeTruthy();
    expect(sessionStorage.getItem('tp.table.participants-page.11')).not.toBeNull();
  });

  it('reads the trial stored locally after a reload', async () => {
    localStorage.setItem('tp.currentTrial', JSON.stringify(TRIAL));
    mockParticipantsApi('Viewer');
    renderApp('/ParticipantsPage');
    expect(await screen.findByTestId('participant-row-2', {}, { timeout: 60_000 })).toBeTruthy();
    expect(screen.queryByTestId('add-participant-button')).toBeNull();
  });
});

describe('View Data on /TrialPage', () => {
  it('opens /ParticipantsDataPage with the selected participants, which goes on to the Omron page', async () => {
    const { router } = await openTrialPage('Viewer');
    await screen.findByTestId('participant-row-2');
    const button = screen.getByTestId('view-participants-data-button') as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    fireEvent.click(checkbox(1));
    fireEvent.click(checkbox(2));
    fireEvent.click(button);
    await screen.findByTestId('participants-data-page', {}, { timeout: 60_000 });
    expect(router.state.location.pathname).toBe('/ParticipantsDataPage');
    const state = router.state.location.state as { participants: Participant[] };
    expect(state.participants.map((p) => p.id)).toEqual([1, 2]);
    fireEvent.change(screen.getByLabelText('Device'), { target: { value: 'omron' } });
    fireEvent.click(screen.getByTestId('participants-data-continue'));
    await screen.findByTestId('omron-participants-data-page');
    expect(router.state.location.pathname).toBe('/OmronParticipantsDataPage');
    expect(screen.getByTestId('omron-participant-1')).toBeTruthy();
    expect(screen.getByTestId('omron-participant-2')).toBeTruthy();
  });

  it('Fitbit Data opens /FitbitParticipantDataPage with the one selected participant and the trial', async () => {
    const { router } = await openTrialPage('Viewer');
    await screen.findByTestId('participant-row-2');
    const button = screen.getByTestId('view-fitbit-data-button') as HTMLButtonElement;
    expect(button.textContent).toBe('Fitbit Data');
    expect(button.disabled).toBe(true);
    fireEvent.click(checkbox(1));
    fireEvent.click(checkbox(2));
    expect(button.disabled).toBe(true);
    fireEvent.click(checkbox(1));
    expect(button.disabled).toBe(false);
    fireEvent.click(button);
    await screen.findByTestId('fitbit-data-page', {}, { timeout: 60_000 });
    expect(router.state.location.pathname).toBe('/FitbitParticipantDataPage');
    expect(findRoute(router.state.location.pathname)?.action).toBe('data.view');
    expect(router.state.location.state).toMatchObject({
      participant: participant(2),
      trial: TRIAL,
    });
    expect(screen.getByText('Fitbit data: CARD-002')).toBeTruthy();
  });
});
