import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { NO_ROLE_MESSAGE } from '@trialpulse/shared';
import { baseHandlers, makeUser, mockApi, type SessionFixture } from '@/testing/mock-api';
import { renderApp } from '@/testing/render-app';

function start(path: string, session: SessionFixture) {
  mockApi(baseHandlers(session));
  return renderApp(path);
}

describe('route guard', () => {
  it('shows a loading state until the session is known', async () => {
    start('/FitbitParticipant1DayData', { kind: 'signed-in', user: makeUser() });
    expect(screen.getByTestId('session-loading')).toBeTruthy();
    // A data page opened without a participant says so (no call needed).
    expect(await screen.findByTestId('fitbit-one-day-page-missing')).toBeTruthy();
  });

  it('sends a signed-out visitor from a protected route to /LoginPage', async () => {
    const { router } = start('/Trials', { kind: 'signed-out' });

    expect(await screen.findByRole('button', { name: 'Log In' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/LoginPage');
    expect(router.state.location.state).toEqual({ from: '/Trials' });
  });

  it('lets a signed-out visitor open public pages', async () => {
    const { router } = start('/ContactUsForm/', { kind: 'signed-out' });

    expect(await screen.findByRole('heading', { name: 'Contact us' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/ContactUsForm/');
  });

  it('sends a user whose second factor is due to the matching page', async () => {
    const { router } = start('/Trials', {
      kind: 'second-factor',
      authStatus: 'SFAValidateCodeNeeded',
    });

    expect(await screen.findByTestId('sfa-validate-page')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/SFAValidatePage');
  });

  it('shows the no-role message to a user without a role', async () => {
    const { router } = start('/Trials', { kind: 'signed-in', user: makeUser({ role: null }) });

    expect((await screen.findByTestId('no-role-message')).textContent).toBe(NO_ROLE_MESSAGE);
    expect(router.state.location.pathname).toBe('/Trials');
    expect(screen.queryByTestId('page-placeholder')).toBeNull();
  });

  it('sends a Viewer on /DataExport to /not-authorized with a button home', async () => {
    const { router } = start('/DataExport', {
      kind: 'signed-in',
      user: makeUser({ role: 'Viewer' }),
    });

    expect(await screen.findByRole('heading', { name: '403 Error - Not Authorized' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/not-authorized');
    expect(screen.getByTestId('go-home').getAttribute('href')).toBe('/');
  });

  it('lets a User open /DataExport', async () => {
    const { router } = start('/DataExport', {
      kind: 'signed-in',
      user: makeUser({ role: 'User' }),
    });
    expect(await screen.findByTestId('data-export-page')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/DataExport');
  });

  it('lets Sys_Admin through every role check', async () => {
    const { router } = start('/DbInfoPage', {
      kind: 'signed-in',
      user: makeUser({ role: 'Sys_Admin' }),
    });

    expect((await screen.findByTestId('page-title')).textContent).toBe('Sys Director Info Page');
    expect(router.state.location.pathname).toBe('/DbInfoPage');
  });

  it('renders the 404 page with a button home for an unknown path', async () => {
    start('/nope', { kind: 'signed-out' });

    expect(await screen.findByRole('heading', { name: '404 Error - page not found' })).toBeTruthy();
    expect(screen.getByTestId('go-home').getAttribute('href')).toBe('/');
  });

  it('treats route paths as case-sensitive', async () => {
    start('/trials', { kind: 'signed-in', user: makeUser() });
    expect(await screen.findByTestId('not-found-page')).toBeTruthy();
  });

  it('renders a page inside the staff layout once signed in', async () => {
    start('/FitbitParticipant1DayData', { kind: 'signed-in', user: makeUser() });

    expect(await screen.findByTestId('fitbit-one-day-page-missing')).toBeTruthy();
    expect(screen.getByTestId('navbar')).toBeTruthy();
    expect(screen.getByTestId('app-footer')).toBeTruthy();
  });
});
