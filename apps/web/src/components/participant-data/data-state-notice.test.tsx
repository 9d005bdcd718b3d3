import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import type { ConnectionSyncStatus } from '@trialpulse/shared';
import { baseHandlers, makeUser, mockApi } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render-app';
import { sleepStudyParticipant } from '@/testing/study-fixtures';
import { instantText } from '@/lib/day-range';
import { DATA_STATE_MESSAGES, DataStateNotice } from './data-state-notice';

const participant = sleepStudyParticipant(5, 'SLP-005');
const CONNECTION: ConnectionSyncStatus = {
  participantId: 5,
  brand: 'Fitbit',
  upstream: 'google-health',
  state: 'not_synced',
  backfillPercent: null,
  backoffUntil: null,
  errorType: null,
  lastSyncAt: null,
  earliestReading: null,
  latestReading: null,
  rowsStored: 0,
  metrics: [],
  nextSyncAt: '2026-11-25T04:15:00.000Z',
  enabledMetrics: ['steps', 'distance'],
};
const METRICS = [
  { key: 'steps', label: 'Steps' },
  { key: 'floors', label: 'Floors' },
  { key: 'weight', label: 'Weight' },
];

function open(role: string, connection: Partial<ConnectionSyncStatus>) {
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ role }) }),
    'GET /api/deviceSync/participant/5': {
      body: { connections: [{ ...CONNECTION, ...connection }] },
    },
    'POST /api/participantConsentEmail': { body: { message: 'Consent email sent.' } },
  });
  renderWithProviders(
    <DataStateNotice participant={participant} brand="Fitbit" metrics={METRICS} />,
  );
  return api;
}

describe('DataStateNotice (issue 30, decision 0191)', () => {
  it('no data yet: says when the next sync runs; names the metrics the team does not store and, for an Admin, where to tick them', async () => {
    open('Admin', {});
    expect((await screen.findByTestId('data-state-Fitbit-empty')).textContent).toBe(
      DATA_STATE_MESSAGES.noDataYet(instantText(new Date(CONNECTION.nextSyncAt!))),
    );
    const notStored = screen.getByTestId('data-state-Fitbit-not-stored');
    expect(notStored.textContent).toContain(DATA_STATE_MESSAGES.notStored('Floors, Weight'));
    expect(notStored.textContent).toContain(DATA_STATE_MESSAGES.enableAdmin);
    expect(screen.getByRole('link', { name: 'Data Management' }).getAttribute('href')).toBe(
      '/TeamDataRetention',
    );
    expect(screen.queryByRole('link', { name: 'Device Metrics Manager' })).toBeNull();
  });

  it('a Sys_Admin is sent to the Device Metrics Manager too; a Viewer is told who can', async () => {
    open('Sys_Admin', { rowsStored: 10 });
    await screen.findByTestId('data-state-Fitbit-not-stored');
    expect(screen.queryByTestId('data-state-Fitbit-empty')).toBeNull();
    expect(screen.getByRole('link', { name: 'Device Metrics Manager' })).toBeTruthy();
    expect(screen.getByTestId('data-state-Fitbit-not-stored').textContent).toContain(
      DATA_STATE_MESSAGES.enableSysAdmin,
    );
  });

  it('says nothing when data is stored and every metric is', async () => {
    const { calls } = open('Viewer', {
      rowsStored: 10,
      enabledMetrics: ['steps', 'floors', 'weight'],
    });
    await waitFor(() =>
      expect(calls.some((call) => call.url.endsWith('/deviceSync/participant/5'))).toBe(true),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByTestId('data-state-Fitbit')).toBeNull();
  });

  it('needs re-consent: the cause, and a button that emails a new consent link', async () => {
    const { calls } = open('User', { state: 'needs_reconsent', nextSyncAt: null });
    const notice = await screen.findByTestId('data-state-Fitbit-reconsent');
    expect(notice.textContent).toContain(DATA_STATE_MESSAGES.needsReconsent);
    fireEvent.click(screen.getByTestId('data-state-Fitbit-send-link'));
    await waitFor(() =>
      expect(calls.find((call) => call.url.endsWith('/participantConsentEmail'))?.body).toEqual({
        participantId: 5,
        brand: 'Fitbit',
      }),
    );
    expect(await screen.findByText('Consent email sent.')).toBeTruthy();
  });

  it('a Viewer reads who can send the link, without a button', async () => {
    open('Viewer', { state: 'needs_reconsent', nextSyncAt: null });
    const notice = await screen.findByTestId('data-state-Fitbit-reconsent');
    expect(notice.textContent).toContain(DATA_STATE_MESSAGES.askForLink);
    expect(screen.queryByTestId('data-state-Fitbit-send-link')).toBeNull();
  });
});
