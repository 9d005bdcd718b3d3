import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import {
  CODE_SUFFIX_MESSAGE,
  EMAIL_MESSAGES,
  PARTICIPANT_MESSAGES,
  PHI_BANNER_MESSAGE,
} from '@trialpulse/shared';
import { errorBody } from '@/testing/mock-api';
import { fieldErrors, fill, writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';
import type { SessionUser } from '@/lib/session';
import { TRIAL, mockParticipantsApi, type Handlers } from '../test-fixtures';

const ADDED = { participantId: 9, participant_code: 'CARD-007', participant_code_suffix: '007' };

async function openAddPage(
  overrides: Handlers = {},
  user: Partial<SessionUser> = {},
  role = 'User',
) {
  const api = mockParticipantsApi(
    role,
    { 'POST /api/trialParticipants': { body: ADDED }, ...overrides },
    user,
  );
  const app = renderApp('/AddParticipantPage', { state: { trial: TRIAL } });
  await screen.findByTestId('add-participant-page', {}, { timeout: 60_000 });
  return { ...api, ...app };
}

const submitButton = () =>
  screen.getByRole('button', { name: 'Add Participant' }) as HTMLButtonElement;

function fillValid() {
  fill('Gender', 'male');
}

const networkFailure = () => {
  throw new TypeError('Failed to fetch');
};

describe('/AddParticipantPage', () => {
  it('shows the PHI banner, the trial and the code prefix', async () => {
    await openAddPage();
    expect(screen.getByTestId('phi-banner').textContent).toBe(PHI_BANNER_MESSAGE);
    expect(screen.getByTestId('add-participant-trial').textContent).toBe(
      'Trial: #CARD-01 - Cardio One',
    );
    await waitFor(() =>
      expect(screen.getByTestId('participant-code-prefix').textContent).toBe('CARD-'),
    );
    expect(screen.getByText(CODE_SUFFIX_MESSAGE)).toBeTruthy();
    expect(screen.getByTestId('participant-notes-counter').textContent).toBe('0/300');
    const gender = screen.getByLabelText('Gender') as HTMLSelectElement;
    expect(Array.from(gender.options).map((option) => option.value)).toEqual([
      '',
      'female',
      'male',
      'other',
      'none',
    ]);
  });

  it('adds with a custom suffix, returns to the trial page and toasts the code', async () => {
    const { calls, router } = await openAddPage();
    fill('Code Suffix', '007');
    fill('Email', 'New@Example.org');
    fill('Gender', 'male');
    fill('Age', '41');
    fill('Notes', 'first visit');
    fireEvent.click(submitButton());

    await screen.findByTestId('trial-page');
    expect(router.state.location.pathname).toBe('/TrialPage');
    expect(router.state.location.state).toEqual({ trial: TRIAL });
    expect(writes(calls).map((call) => [call.method, call.url, call.body])).toEqual([
      [
        'POST',
        '/api/trialParticipants',
        {
          trialId: 11,
          codeSuffix: '007',
          email: 'new@example.org',
          gender: 'male',
          age: 41,
          notes: 'first visit',
        },
      ],
    ]);
    expect((await screen.findByTestId('app-toast')).textContent).toContain(
      'Participant CARD-007 has been added.',
    );
  });

  it('leaves the suffix to the server when blank', async () => {
    const { calls } = await openAddPage();
    fillValid();
    fireEvent.click(submitButton());
    await waitFor(() => expect(writes(calls)).toHaveLength(1));
    expect(writes(calls)[0]?.body).toEqual({
      trialId: 11,
      email: null,
      gender: 'male',
      age: null,
      notes: null,
    });
  });

  it('upper-cases the suffix and blocks submitting while it breaks the rule', async () => {
    const { calls } = await openAddPage();
    fillValid();
    const suffix = screen.getByLabelText('Code Suffix') as HTMLInputElement;
    fill('Code Suffix', 'ab1');
    expect(suffix.value).toBe('AB1');
    await waitFor(() => expect(submitButton().disabled).toBe(true));
    expect(screen.getByText(CODE_SUFFIX_MESSAGE).className).toContain('Mui-error');
    fireEvent.submit(submitButton().closest('form') as HTMLFormElement);
    fill('Code Suffix', '1234567890123');
    await waitFor(() => expect(submitButton().disabled).toBe(true));
    fill('Code Suffix', '123456789_12');
    await waitFor(() => expect(submitButton().disabled).toBe(false));
    expect(screen.getByText(CODE_SUFFIX_MESSAGE).className).not.toContain('Mui-error');
    expect(writes(calls)).toHaveLength(0);
  });

  it.each([
    ['0', PARTICIPANT_MESSAGES.ageGreaterThanZero],
    ['-3', PARTICIPANT_MESSAGES.ageGreaterThanZero],
    ['1234', PARTICIPANT_MESSAGES.ageMaxDigits],
    ['4a', PARTICIPANT_MESSAGES.ageDigitsOnly],
    ['4.5', PARTICIPANT_MESSAGES.ageDigitsOnly],
  ])('rejects the age %s with the spec message', async (age, message) => {
    const { calls } = await openAddPage();
    fillValid();
    fill('Age', age);
    fireEvent.click(submitButton());
    await waitFor(() => expect(fieldErrors()).toEqual([message]));
    expect(writes(calls)).toHaveLength(0);
  });

  it('requires a gender and checks email and notes', async () => {
    const { calls } = await openAddPage();
    fill('Email', 'not-an-email');
    fill('Notes', 'x'.repeat(301));
    expect(screen.getByTestId('participant-notes-counter').textContent).toBe('301/300');
    fireEvent.click(submitButton());
    await waitFor(() =>
      expect(fieldErrors()).toEqual([
        EMAIL_MESSAGES.invalid,
        PARTICIPANT_MESSAGES.genderRequired,
        PARTICIPANT_MESSAGES.notesTooLong,
      ]),
    );
    expect(writes(calls)).toHaveLength(0);
  });

  it.each([
    [
      'email taken',
      {
        status: 409,
        body: errorBody(PARTICIPANT_MESSAGES.emailTaken, true, 'PARTICIPANT_EMAIL_TAKEN'),
      },
      PARTICIPANT_MESSAGES.emailTaken,
    ],
    [
      'code taken',
      {
        status: 409,
        body: errorBody(PARTICIPANT_MESSAGES.codeTaken, true, 'PARTICIPANT_CODE_TAKEN'),
      },
      PARTICIPANT_MESSAGES.codeTaken,
    ],
    [
      'suffix already in use (older wording)',
      { status: 409, body: errorBody('Participant code suffix already in use', true, 'CONFLICT') },
      PARTICIPANT_MESSAGES.codeTaken,
    ],
    [
      'team maximum reached',
      {
        status: 409,
        body: errorBody(
          PARTICIPANT_MESSAGES.maxParticipantsReached,
          true,
          'MAX_PARTICIPANTS_REACHED',
        ),
      },
      PARTICIPANT_MESSAGES.maxParticipantsReached,
    ],
    ['a network error', networkFailure, PARTICIPANT_MESSAGES.network],
    [
      'a server error',
      { status: 500, body: errorBody('An error occurred.', false, 'INTERNAL_ERROR') },
      PARTICIPANT_MESSAGES.server,
    ],
    [
      'a displayable validation error',
      { status: 400, body: errorBody('Invalid input', true, 'VALIDATION_ERROR') },
      'Validation Error: Invalid input',
    ],
    [
      'a validation error without a displayable message',
      { status: 400, body: errorBody('x', false, 'VALIDATION_ERROR') },
      PARTICIPANT_MESSAGES.validation,
    ],
    [
      'anything else',
      { status: 404, body: errorBody('Trial not found.', true, 'NOT_FOUND') },
      PARTICIPANT_MESSAGES.addFailed,
    ],
  ])('maps %s to the spec text', async (_label, reply, text) => {
    const { router } = await openAddPage({ 'POST /api/trialParticipants': reply });
    fillValid();
    fireEvent.click(submitButton());
    expect((await screen.findByTestId('add-participant-error')).textContent).toBe(text);
    expect(router.state.location.pathname).toBe('/AddParticipantPage');
    expect(screen.queryByText(/Database Error/)).toBeNull();
  });

  it.each([
    [
      'the call fails',
      { status: 500, body: errorBody('x', false) },
      PARTICIPANT_MESSAGES.trialCodeError,
    ],
    ['the answer has no prefix', { body: {} }, PARTICIPANT_MESSAGES.trialCodeLoadFailed],
  ])('says so when %s loading the trial code', async (_label, reply, text) => {
    await openAddPage({ 'GET /api/trialParticipants/11/trialCode': reply });
    expect((await screen.findByTestId('trial-code-error')).textContent).toBe(text);
  });

  it('shows the email field with a placeholder when the team hides emails', async () => {
    await openAddPage({}, { hiddenFields: ['email'] });
    const email = screen.getByLabelText('Email') as HTMLInputElement;
    expect(email.placeholder).toBe('Hidden for this team');
  });

  it('tells a Viewer the role cannot add participants', async () => {
    await openAddPage({}, {}, 'Viewer');
    expect(screen.getByTestId('add-participant-not-allowed')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Add Participant' })).toBeNull();
  });

  it('asks to pick a trial when none is known', async () => {
    mockParticipantsApi('User');
    renderApp('/AddParticipantPage');
    expect(
      await screen.findByText('Please select a trial from the dashboard.', {}, { timeout: 60_000 }),
    ).toBeTruthy();
  });
});
