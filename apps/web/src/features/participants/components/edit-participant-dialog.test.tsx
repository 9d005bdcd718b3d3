import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { CODE_SUFFIX_MESSAGE, PARTICIPANT_MESSAGES } from '@trialpulse/shared';
import { errorBody, type RecordedCall } from '@/testing/mock-api';
import { writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';
import type { SessionUser } from '@/lib/session';
import { TRIAL, mockParticipantsApi, participant, type Handlers } from '../test-fixtures';

const PATCH_URL = '/api/trialParticipants/11/2/code';

async function openEditDialog(overrides: Handlers = {}, user: Partial<SessionUser> = {}) {
  const api = mockParticipantsApi(
    'User',
    {
      'PUT /api/participant': { body: { message: 'The participant has been updated.' } },
      [`PATCH ${PATCH_URL}`]: { body: { participant_code: 'CARD-777' } },
      ...overrides,
    },
    user,
  );
  renderApp('/TrialPage', { state: { trial: TRIAL } });
  const row = await screen.findByTestId('participant-row-2', {}, { timeout: 60_000 });
  fireEvent.click(within(row).getByRole('checkbox'));
  const edit = screen.getByTestId('edit-participant-button') as HTMLButtonElement;
  await waitFor(() => expect(edit.disabled).toBe(false));
  fireEvent.click(edit);
  const dialog = await screen.findByRole('dialog', { name: 'Edit Participant' });
  return { ...api, dialog };
}

function fillIn(dialog: HTMLElement, label: string, value: string) {
  fireEvent.change(within(dialog).getByLabelText(label), { target: { value } });
}

const save = (dialog: HTMLElement) =>
  fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

const writesTo = (calls: RecordedCall[]) =>
  writes(calls).map((call) => [call.method, call.url, call.body]);

const networkFailure = () => {
  throw new TypeError('Failed to fetch');
};

beforeEach(() => sessionStorage.clear());

describe('Edit Participant dialog', () => {
  it('shows the PHI banner and the stored values', async () => {
    const { dialog } = await openEditDialog();
    expect(within(dialog).getByTestId('phi-banner').textContent).toBe(
      PARTICIPANT_MESSAGES.phiBanner,
    );
    expect((within(dialog).getByLabelText('Code Suffix') as HTMLInputElement).value).toBe('002');
    expect(within(dialog).getByTestId('participant-code-prefix').textContent).toBe('CARD-');
    expect((within(dialog).getByLabelText('Email') as HTMLInputElement).value).toBe(
      'p2@example.org',
    );
    expect((within(dialog).getByLabelText('Gender') as HTMLSelectElement).value).toBe('female');
    expect((within(dialog).getByLabelText('Age') as HTMLInputElement).value).toBe('32');
    expect(within(dialog).getByTestId('participant-notes-counter').textContent).toBe('6/300');
  });

  it('saves the fields only when the suffix is unchanged', async () => {
    const { dialog, calls } = await openEditDialog();
    fillIn(dialog, 'Age', '45');
    fillIn(dialog, 'Gender', 'other');
    save(dialog);
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'Edit Participant' })).toBeNull(),
    );
    expect(writesTo(calls)).toEqual([
      [
        'PUT',
        '/api/participant',
        { id: 2, email: 'p2@example.org', gender: 'other', age: 45, notes: 'note 2' },
      ],
    ]);
    expect((await screen.findByTestId('app-toast')).textContent).toContain(
      'The participant has been updated.',
    );
  });

  it('saves the fields, then the changed code', async () => {
    const { dialog, calls } = await openEditDialog();
    fillIn(dialog, 'Code Suffix', '777');
    save(dialog);
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'Edit Participant' })).toBeNull(),
    );
    expect(writesTo(calls).map(([method, url]) => `${method} ${url}`)).toEqual([
      'PUT /api/participant',
      `PATCH ${PATCH_URL}`,
    ]);
    expect(writes(calls)[1]?.body).toEqual({ suffix: '777' });
  });

  it('upper-cases the suffix and blocks saving while it breaks the rule', async () => {
    const { dialog, calls } = await openEditDialog();
    const suffix = within(dialog).getByLabelText('Code Suffix') as HTMLInputElement;
    const saveButton = within(dialog).getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    fillIn(dialog, 'Code Suffix', 'ab_1');
    expect(suffix.value).toBe('AB_1');
    await waitFor(() => expect(saveButton.disabled).toBe(true));
    expect(within(dialog).getByText(CODE_SUFFIX_MESSAGE).className).toContain('Mui-error');
    fillIn(dialog, 'Code Suffix', '');
    await waitFor(() => expect(saveButton.disabled).toBe(true));
    fillIn(dialog, 'Code Suffix', '1234567890123');
    await waitFor(() => expect(saveButton.disabled).toBe(true));
    fillIn(dialog, 'Code Suffix', '12_3');
    await waitFor(() => expect(saveButton.disabled).toBe(false));
    expect(writes(calls)).toHaveLength(0);
  });

  it('stops after a failed PUT with the spec text and never sends the code', async () => {
    const { dialog, calls } = await openEditDialog({
      'PUT /api/participant': { status: 500, body: errorBody('x', false) },
    });
    fillIn(dialog, 'Code Suffix', '777');
    save(dialog);
    expect((await within(dialog).findByTestId('edit-participant-error')).textContent).toBe(
      PARTICIPANT_MESSAGES.editFailed,
    );
    expect(writesTo(calls).map(([method]) => method)).toEqual(['PUT']);
  });

  it('names a taken email on a failed PUT', async () => {
    const { dialog } = await openEditDialog({
      'PUT /api/participant': {
        status: 409,
        body: errorBody(PARTICIPANT_MESSAGES.emailTaken, true, 'PARTICIPANT_EMAIL_TAKEN'),
      },
    });
    save(dialog);
    expect((await within(dialog).findByTestId('edit-participant-error')).textContent).toBe(
      PARTICIPANT_MESSAGES.emailTaken,
    );
  });

  it.each([
    [
      'a conflict (old code kept)',
      {
        status: 409,
        body: errorBody(PARTICIPANT_MESSAGES.codeTaken, true, 'PARTICIPANT_CODE_TAKEN'),
      },
      PARTICIPANT_MESSAGES.codeTaken,
    ],
    [
      'not found',
      { status: 404, body: errorBody(PARTICIPANT_MESSAGES.codeChangeNotFound, true, 'NOT_FOUND') },
      PARTICIPANT_MESSAGES.codeChangeNotFound,
    ],
    [
      'an invalid suffix',
      { status: 400, body: errorBody('Invalid', true, 'VALIDATION_ERROR') },
      PARTICIPANT_MESSAGES.codeChangeInvalidSuffix,
    ],
    [
      'another displayable refusal',
      { status: 403, body: errorBody('The team is not active.', true, 'TEAM_INACTIVE') },
      'Code change failed: The team is not active.',
    ],
    [
      'a server error',
      { status: 500, body: errorBody('boom', false, 'INTERNAL_ERROR') },
      PARTICIPANT_MESSAGES.updatedButCodeChangeFailed,
    ],
    ['a network error', networkFailure, PARTICIPANT_MESSAGES.updatedButCodeChangeFailed],
  ])('shows the spec text when the code change fails with %s', async (_label, reply, text) => {
    const { dialog, calls } = await openEditDialog({ [`PATCH ${PATCH_URL}`]: reply });
    fillIn(dialog, 'Code Suffix', '001');
    save(dialog);
    expect((await within(dialog).findByTestId('edit-participant-error')).textContent).toBe(text);
    expect(writesTo(calls).map(([method]) => method)).toEqual(['PUT', 'PATCH']);
    expect(within(dialog).getByTestId('edit-participant-current-code').textContent).toBe(
      'Current code: CARD-002',
    );
    expect(screen.getByRole('dialog', { name: 'Edit Participant' })).toBeTruthy();
  });

  it('shows a hidden email as a placeholder and keeps it when left blank', async () => {
    const { dialog, calls } = await openEditDialog(
      {
        'GET /api/trialParticipants/11': {
          body: [participant(1, { email: undefined }), participant(2, { email: undefined })],
        },
      },
      { hiddenFields: ['email'] },
    );
    const email = within(dialog).getByLabelText('Email') as HTMLInputElement;
    expect(email.value).toBe('');
    expect(email.placeholder).toBe('Hidden for this team');
    save(dialog);
    await waitFor(() => expect(writes(calls)).toHaveLength(1));
    expect(writes(calls)[0]?.body).toEqual({ id: 2, gender: 'female', age: 32, notes: 'note 2' });
  });
});
