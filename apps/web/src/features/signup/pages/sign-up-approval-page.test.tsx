import { describe, expect, it } from 'vitest';
import { fireEvent, screen } from '@testing-library/react';
import { APPROVAL_MESSAGES, EMAIL_MESSAGES } from '@trialpulse/shared';
import { baseHandlers, errorBody, makeUser, mockApi } from '@/testing/mock-api';
import { fill, submit, writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';

const TEAMS = [
  { team_id: 1, team_name: 'Cardio Lab' },
  { team_id: 4, team_name: 'Sleep Study' },
];

async function open(overrides: Parameters<typeof mockApi>[0] = {}) {
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'Sys_Admin' }) }),
    'GET /api/team': { body: TEAMS },
    'POST /api/userSignUpPermission/approveSignUp': {
      body: { message: 'Sign-up approved and email sent.' },
    },
    ...overrides,
  });
  renderApp('/SignUpApprovalPage');
  await screen.findByRole('button', { name: 'Approve Sign-up' });
  return api;
}

function choose(label: string, value: string) {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
}

describe('sign-up approval page', () => {
  it('asks for email, role and team and sends nothing', async () => {
    const { calls } = await open();
    submit('Approve Sign-up');

    expect(await screen.findByText(EMAIL_MESSAGES.required)).toBeTruthy();
    expect(screen.getByText(APPROVAL_MESSAGES.roleRequired)).toBeTruthy();
    expect(screen.getByText(APPROVAL_MESSAGES.teamRequired)).toBeTruthy();
    expect(writes(calls)).toHaveLength(0);
  });

  it('rejects an invalid email', async () => {
    const { calls } = await open();
    fill('Email', 'nope');
    choose('Role', 'User');
    choose('Team', '4');
    submit('Approve Sign-up');

    expect(await screen.findByText(EMAIL_MESSAGES.invalid)).toBeTruthy();
    expect(writes(calls)).toHaveLength(0);
  });

  it('offers the approvable roles and the teams', async () => {
    await open();
    const roles = Array.from((screen.getByLabelText('Role') as HTMLSelectElement).options).map(
      (option) => option.value,
    );
    expect(roles).toEqual(['', 'Viewer', 'User', 'Admin']);
    const teams = Array.from((screen.getByLabelText('Team') as HTMLSelectElement).options).map(
      (option) => option.textContent,
    );
    expect(teams).toEqual(['Select a team', 'Cardio Lab', 'Sleep Study']);
  });

  it('approves with email, role, team id and team name and shows the notice', async () => {
    const { calls } = await open();
    fill('Email', 'new.person@example.org');
    choose('Role', 'Viewer');
    choose('Team', '4');
    submit('Approve Sign-up');

    expect((await screen.findByTestId('approval-success')).textContent).toBe(
      'Sign-up approved and email sent.',
    );
    expect(
      calls.find((call) => call.url === '/api/userSignUpPermission/approveSignUp')?.body,
    ).toEqual({
      email: 'new.person@example.org',
      role: 'Viewer',
      teamId: 4,
      teamName: 'Sleep Study',
    });
    expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('');
  });

  it('shows the failure text, or the server message when displayable', async () => {
    await open({
      'POST /api/userSignUpPermission/approveSignUp': { status: 500, body: errorBody('x', false) },
    });
    fill('Email', 'new.person@example.org');
    choose('Role', 'User');
    choose('Team', '1');
    submit('Approve Sign-up');
    expect((await screen.findByTestId('approval-error')).textContent).toBe(
      APPROVAL_MESSAGES.failed,
    );
  });

  it('is for Sys_Admin only', async () => {
    mockApi(baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'Admin' }) }));
    const { router } = renderApp('/SignUpApprovalPage');
    expect(await screen.findByRole('heading', { name: '403 Error - Not Authorized' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/not-authorized');
  });
});
