import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { TRIAL_MESSAGES, type Trial } from '@trialpulse/shared';
import { baseHandlers, errorBody, makeUser, mockApi, type RecordedCall } from '@/testing/mock-api';
import { fieldErrors, writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';

const TRIALS: Trial[] = [
  trial(11, 'CARD-01', 'Cardio One', 'Beta blockers', 'ada@example.org'),
  trial(12, 'SLP-02', 'Sleep Two', '', 'grace@example.org'),
];

function trial(
  trialId: number,
  trialNumber: string,
  trialName: string,
  trialNotes: string,
  trialOwnerEmail: string | null,
): Trial {
  return {
    trialId,
    trialNumber,
    trialName,
    trialNotes,
    trialOwnerEmail,
    teamId: 1,
    creationDate: '2025-01-02T10:00:00.000Z',
  };
}

type Handlers = Parameters<typeof mockApi>[0];

async function open(
  role = 'Admin',
  overrides: Handlers = {},
  trials: Trial[] = TRIALS,
  firstShown = trials[0],
) {
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ role }) }),
    'GET /api/userTrials/': { body: trials },
    ...overrides,
  });
  const app = renderApp('/Trials');
  // The first render loads the lazy page and the table library: slow on a cold module graph.
  await screen.findByTestId('trials-table', {}, { timeout: 60_000 });
  if (firstShown) await screen.findByTestId(`trial-row-${firstShown.trialId}`);
  return { ...api, ...app };
}

/** Like `fill`, inside the dialog: the table behind it makes whole-page label lookups slow. */
function fillIn(dialog: HTMLElement, label: string, value: string) {
  fireEvent.change(within(dialog).getByLabelText(label), { target: { value } });
}

const bodyOf = (calls: RecordedCall[], method: string) =>
  writes(calls)
    .filter((call) => call.method === method && call.url === '/api/userTrials')
    .map((call) => call.body);

beforeEach(() => sessionStorage.clear());

describe('trials table', () => {
  it('fetches only the visible page from the server, and the next page when asked', async () => {
    const many = Array.from({ length: 35 }, (_, index) =>
      trial(100 + index, `T-${String(index).padStart(2, '0')}`, `Trial ${index}`, '', null),
    );
    const { calls } = await open('Admin', {}, many);
    const listCalls = () => calls.filter((call) => call.url.startsWith('/api/userTrials/'));
    expect(listCalls().map((call) => call.url)).toEqual([
      '/api/userTrials/?pageIndex=0&pageSize=10',
    ]);
    expect(document.querySelectorAll('[data-testid^="trial-row-1"]')).toHaveLength(10);

    fireEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
    await screen.findByTestId('trial-row-110');
    expect(listCalls().at(-1)?.url).toBe('/api/userTrials/?pageIndex=1&pageSize=10');
    expect(screen.queryByTestId('trial-row-100')).toBeNull();
  });

  it('shows the columns and, for an Admin, New Trial, edit and delete', async () => {
    await open('Admin');
    const table = screen.getByTestId('trials-table');
    for (const header of [
      'Trial Number',
      'Trial Name',
      'Notes',
      'Actions',
      "Trial Owner's Email",
    ]) {
      expect(within(table).getAllByText(header).length).toBeGreaterThan(0);
    }
    expect(screen.getByText('grace@example.org')).toBeTruthy();
    expect(screen.getByTestId('new-trial-button').textContent).toBe('New Trial');
    expect(screen.getByTestId('trial-row-edit-11')).toBeTruthy();
    expect(screen.getByTestId('trial-row-delete-12')).toBeTruthy();
  });

  it('gives a User edit but neither New Trial nor delete', async () => {
    await open('User');
    expect(screen.queryByTestId('new-trial-button')).toBeNull();
    expect(screen.getByTestId('trial-row-edit-11')).toBeTruthy();
    expect(screen.queryByTestId('trial-row-delete-11')).toBeNull();
  });

  it('gives a Viewer no buttons at all', async () => {
    await open('Viewer');
    expect(screen.queryByTestId('new-trial-button')).toBeNull();
    expect(screen.queryByTestId('trial-row-edit-11')).toBeNull();
    expect(screen.queryByTestId('trial-row-delete-11')).toBeNull();
  });

  it('says so when there are no trials', async () => {
    await open('Admin', {}, []);
    expect(await screen.findByText('No trials found.')).toBeTruthy();
  });

  it('shows ten rows per page by default', async () => {
    const many = Array.from({ length: 12 }, (_, index) =>
      trial(100 + index, `T-${100 + index}`, `Trial ${100 + index}`, '', null),
    );
    await open('Admin', {}, many);
    expect(screen.getByText('Trial 109')).toBeTruthy();
    expect(screen.queryByText('Trial 110')).toBeNull();
  });

  it('opens the trial page with the trial in the navigation state and stored locally', async () => {
    const { router } = await open('Viewer');
    fireEvent.click(screen.getByText('Sleep Two'));

    expect((await screen.findByTestId('trial-title')).textContent).toBe(
      'Trial: #SLP-02 - Sleep Two',
    );
    expect(router.state.location.pathname).toBe('/TrialPage');
    expect(router.state.location.state).toEqual({ trial: TRIALS[1] });
    expect(JSON.parse(localStorage.getItem('tp.currentTrial') ?? 'null')).toEqual(TRIALS[1]);
  });

  it('filters 200 ms after typing and keeps the filter in session storage', async () => {
    await open('Admin');
    fireEvent.change(screen.getByTestId('trials-search'), { target: { value: 'sleep' } });
    expect(screen.getByText('Cardio One')).toBeTruthy();

    await waitFor(() => expect(screen.queryByTestId('trial-row-11')).toBeNull());
    expect(screen.getByTestId('trial-row-12')).toBeTruthy();
    expect(JSON.parse(sessionStorage.getItem('tp.table.trials') ?? '{}')).toMatchObject({
      globalFilter: 'sleep',
      pageIndex: 0,
      pageSize: 10,
    });
  });

  it('restores a saved filter and ignores a saved state that breaks the rules', async () => {
    sessionStorage.setItem(
      'tp.table.trials',
      JSON.stringify({ pageIndex: 0, pageSize: 10, sorting: [], globalFilter: 'cardio' }),
    );
    await open('Admin');
    expect(screen.queryByTestId('trial-row-12')).toBeNull();
    expect((screen.getByTestId('trials-search') as HTMLInputElement).value).toBe('cardio');
  });

  it('restores the saved page once the trials have loaded', async () => {
    sessionStorage.setItem(
      'tp.table.trials',
      JSON.stringify({ pageIndex: 1, pageSize: 10, sorting: [], globalFilter: '' }),
    );
    const many = Array.from({ length: 12 }, (_, index) =>
      trial(100 + index, `T-${100 + index}`, `Trial ${100 + index}`, '', null),
    );
    await open('Admin', {}, many, many[10]);
    expect(screen.getByTestId('trial-row-111')).toBeTruthy();
    expect(screen.queryByTestId('trial-row-100')).toBeNull();
  });

  it('starts fresh when the saved page is out of range', async () => {
    sessionStorage.setItem(
      'tp.table.trials',
      JSON.stringify({ pageIndex: 10_000, pageSize: 10, sorting: [], globalFilter: 'cardio' }),
    );
    await open('Admin');
    expect(screen.getByText('Sleep Two')).toBeTruthy();
    expect((screen.getByTestId('trials-search') as HTMLInputElement).value).toBe('');
  });

  it('keeps hidden columns hidden from local storage', async () => {
    localStorage.setItem(
      'tp.dashboard.columnVisibility.trials',
      JSON.stringify({ trialNotes: false }),
    );
    await open('Admin');
    expect(screen.queryByText('Beta blockers')).toBeNull();
  });
});

describe('New Trial', () => {
  it('requires number and name and sends nothing', async () => {
    const { calls } = await open('Admin');
    fireEvent.click(screen.getByTestId('new-trial-button'));
    const dialog = await screen.findByRole('dialog', { name: 'New Trial' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

    await waitFor(() =>
      expect(fieldErrors()).toEqual([TRIAL_MESSAGES.numberRequired, TRIAL_MESSAGES.nameRequired]),
    );
    expect(writes(calls)).toHaveLength(0);
  });

  it('counts the notes and refuses more than 300 characters', async () => {
    const { calls } = await open('Admin');
    fireEvent.click(screen.getByTestId('new-trial-button'));
    const dialog = await screen.findByRole('dialog', { name: 'New Trial' });
    expect(screen.getByTestId('trial-notes-counter').textContent).toBe('0/300');
    fillIn(dialog, 'Trial Number', 'N-1');
    fillIn(dialog, 'Trial Name', 'Name');
    fillIn(dialog, 'Trial Notes', 'x'.repeat(301));
    expect(screen.getByTestId('trial-notes-counter').textContent).toBe('301/300');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText(TRIAL_MESSAGES.notesTooLong)).toBeTruthy();
    expect(writes(calls)).toHaveLength(0);
  });

  it('posts number, name and notes, closes and reloads the list', async () => {
    let listed = TRIALS;
    const added = trial(13, 'NEW-3', 'New Three', 'Some notes', 'ada@example.org');
    const { calls } = await open('Admin', {
      'GET /api/userTrials/': () => ({ body: listed }),
      'POST /api/userTrials': () => {
        listed = [...TRIALS, added];
        return { body: { trialId: 13, message: 'Trial added' } };
      },
    });
    fireEvent.click(screen.getByTestId('new-trial-button'));
    const dialog = await screen.findByRole('dialog', { name: 'New Trial' });
    fillIn(dialog, 'Trial Number', 'NEW-3');
    fillIn(dialog, 'Trial Name', 'New Three');
    fillIn(dialog, 'Trial Notes', 'Some notes');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('New Three')).toBeTruthy();
    expect(bodyOf(calls, 'POST')).toEqual([
      { trialNumber: 'NEW-3', trialName: 'New Three', trialNotes: 'Some notes' },
    ]);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'New Trial' })).toBeNull());
  });

  it.each([
    ['the fallback text', errorBody('db down', false), `Error: ${TRIAL_MESSAGES.addFailed}`],
    [
      'the displayable server message',
      errorBody(TRIAL_MESSAGES.maxTrialsReached, true, 'CONFLICT'),
      `Error: ${TRIAL_MESSAGES.maxTrialsReached}`,
    ],
    [
      'the inactive-team message',
      errorBody('Forbidden', false, 'TEAM_INACTIVE'),
      `Error: ${TRIAL_MESSAGES.teamInactive}`,
    ],
  ])('shows %s when adding fails', async (_label, body, text) => {
    await open('Admin', { 'POST /api/userTrials': { status: 409, body } });
    fireEvent.click(screen.getByTestId('new-trial-button'));
    const dialog = await screen.findByRole('dialog', { name: 'New Trial' });
    fillIn(dialog, 'Trial Number', 'N-1');
    fillIn(dialog, 'Trial Name', 'Name');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

    expect((await screen.findByTestId('trial-form-error')).textContent).toBe(text);
    expect(screen.getByRole('dialog', { name: 'New Trial' })).toBeTruthy();
  });

  it('closes on Cancel without sending', async () => {
    const { calls } = await open('Admin');
    fireEvent.click(screen.getByTestId('new-trial-button'));
    const dialog = await screen.findByRole('dialog', { name: 'New Trial' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'New Trial' })).toBeNull());
    expect(writes(calls)).toHaveLength(0);
  });
});

describe('Edit Trial', () => {
  it('starts from the trial and puts id, number, name and notes', async () => {
    const { calls } = await open('User', {
      'PUT /api/userTrials': { body: { message: 'Trial updated' } },
    });
    fireEvent.click(screen.getByTestId('trial-row-edit-11'));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Trial' });
    expect((screen.getByLabelText('Trial Number') as HTMLInputElement).value).toBe('CARD-01');
    expect((screen.getByLabelText('Trial Notes') as HTMLTextAreaElement).value).toBe(
      'Beta blockers',
    );
    fillIn(dialog, 'Trial Name', 'Cardio Renamed');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

    await waitFor(() =>
      expect(bodyOf(calls, 'PUT')).toEqual([
        {
          trialId: 11,
          trialNumber: 'CARD-01',
          trialName: 'Cardio Renamed',
          trialNotes: 'Beta blockers',
        },
      ]),
    );
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Edit Trial' })).toBeNull());
  });

  it('validates like New Trial and shows the update failure', async () => {
    const { calls } = await open('Admin', {
      'PUT /api/userTrials': { status: 500, body: errorBody('boom', false) },
    });
    fireEvent.click(screen.getByTestId('trial-row-edit-12'));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Trial' });
    fillIn(dialog, 'Trial Name', '   ');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(TRIAL_MESSAGES.nameRequired)).toBeTruthy();
    expect(writes(calls)).toHaveLength(0);

    fillIn(dialog, 'Trial Name', 'Sleep 2');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect((await screen.findByTestId('trial-form-error')).textContent).toBe(
      `Error: ${TRIAL_MESSAGES.updateFailed}`,
    );
  });
});

describe('Delete Trial?', () => {
  it('deletes the trial by id', async () => {
    const { calls } = await open('Admin', {
      'DELETE /api/userTrials': { body: { message: 'Trial deleted' } },
    });
    fireEvent.click(screen.getByTestId('trial-row-delete-12'));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Trial?' });
    expect(within(dialog).getByText('SLP-02')).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));

    await waitFor(() => expect(bodyOf(calls, 'DELETE')).toEqual([{ trialId: 12 }]));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Delete Trial?' })).toBeNull());
  });

  it('asks to confirm deleting the participants too when the trial has some', async () => {
    const { calls } = await open('Admin', {
      'DELETE /api/userTrials': (call) =>
        (call.body as { cascade?: boolean }).cascade
          ? { body: { message: 'Trial deleted' } }
          : {
              status: 409,
              body: errorBody(TRIAL_MESSAGES.hasParticipants, true, 'TRIAL_HAS_PARTICIPANTS'),
            },
    });
    fireEvent.click(screen.getByTestId('trial-row-delete-11'));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Trial?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));

    expect((await screen.findByTestId('delete-trial-has-participants')).textContent).toBe(
      TRIAL_MESSAGES.hasParticipants,
    );
    const deleteButton = within(dialog).getByRole('button', {
      name: 'Delete',
    }) as HTMLButtonElement;
    expect(deleteButton.disabled).toBe(true);
    fireEvent.click(within(dialog).getByLabelText('Delete the trial and its participants'));
    expect(deleteButton.disabled).toBe(false);
    fireEvent.click(deleteButton);

    await waitFor(() =>
      expect(bodyOf(calls, 'DELETE')).toEqual([{ trialId: 11 }, { trialId: 11, cascade: true }]),
    );
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Delete Trial?' })).toBeNull());
  });

  it('shows the delete failure', async () => {
    await open('Admin', { 'DELETE /api/userTrials': { status: 500, body: errorBody('x', false) } });
    fireEvent.click(screen.getByTestId('trial-row-delete-11'));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Trial?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect((await screen.findByTestId('delete-trial-error')).textContent).toBe(
      `Error: ${TRIAL_MESSAGES.deleteFailed}`,
    );
  });
});
