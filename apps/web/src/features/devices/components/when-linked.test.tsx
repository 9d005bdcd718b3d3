import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { DEVICE_MESSAGES, type ConnectionSyncStatus } from '@trialpulse/shared';
import { renderWithProviders } from '@/testing/render-app';
import { mockDevicesApi } from '../testing/device-fixtures';
import { WhenLinked } from './when-linked';

const view = <span data-testid="brand-view">the Omron tile</span>;

const synced = (brand: ConnectionSyncStatus['brand'], state: ConnectionSyncStatus['state']) => ({
  participantId: 2,
  brand,
  upstream: brand.toLowerCase(),
  state,
  backfillPercent: null,
  backoffUntil: null,
  errorType: null,
  lastSyncAt: null,
  earliestReading: null,
  latestReading: null,
  rowsStored: 0,
  metrics: [],
  nextSyncAt: null,
  enabledMetrics: [],
});

/** The sync status lists every connection the participant ever had (data.view may read it). */
function withConnections(role: string, connections: ReturnType<typeof synced>[]) {
  mockDevicesApi(role, {
    'GET /api/deviceSync/participant/2': { body: { connections } },
    // A Viewer may not read the connections list (device.connect): not asked any more.
    'GET /api/participantConnections/2': { status: 403, body: { message: 'Forbidden' } },
  });
}

describe('WhenLinked', () => {
  it('a brand never linked: says so and does not show the view that would ask for its data', async () => {
    withConnections('User', [synced('Fitbit', 'up_to_date')]);
    renderWithProviders(
      <WhenLinked participantId={2} brand="Omron">
        {view}
      </WhenLinked>,
    );
    expect((await screen.findByTestId('not-linked-Omron')).textContent).toBe(
      DEVICE_MESSAGES.notAuthorized,
    );
    expect(screen.queryByTestId('brand-view')).toBeNull();
  });

  it('for a Viewer too, and the report leaves the brand out (decision 0192)', async () => {
    withConnections('Viewer', [synced('Dexcom', 'up_to_date')]);
    renderWithProviders(
      <>
        <WhenLinked participantId={2} brand="Omron" fallback={null}>
          {view}
        </WhenLinked>
        <WhenLinked participantId={2} brand="Dexcom" fallback={null}>
          <span data-testid="dexcom-view">CGM</span>
        </WhenLinked>
      </>,
    );
    expect(await screen.findByTestId('dexcom-view')).toBeTruthy();
    expect(screen.queryByTestId('brand-view')).toBeNull();
    expect(screen.queryByTestId('not-linked-Omron')).toBeNull();
  });

  it.each(['up_to_date', 'not_synced', 'needs_reconsent'] as const)(
    'a %s connection shows the view (stored readings may answer)',
    async (state) => {
      withConnections('User', [synced('Omron', state)]);
      renderWithProviders(
        <WhenLinked participantId={2} brand="Omron">
          {view}
        </WhenLinked>,
      );
      expect((await screen.findByTestId('brand-view')).textContent).toBe('the Omron tile');
      expect(screen.queryByTestId('not-linked-Omron')).toBeNull();
    },
  );
});
