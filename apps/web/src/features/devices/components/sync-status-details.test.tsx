import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import dayjs from 'dayjs';
import type { ConnectionSyncStatus } from '@trialpulse/shared';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render-app';
import { SyncStatusDetails } from './sync-status-details';

const CONNECTION: ConnectionSyncStatus = {
  participantId: 4,
  brand: 'Dexcom',
  upstream: 'dexcom',
  state: 'up_to_date',
  backfillPercent: null,
  backoffUntil: null,
  errorType: null,
  lastSyncAt: '2026-11-25T03:48:03.000Z',
  earliestReading: '2026-10-25T05:00:00.000Z',
  latestReading: '2026-11-25T02:47:54.000Z',
  rowsStored: 8834,
  metrics: [],
  nextSyncAt: '2026-11-25T04:00:00.000Z',
  enabledMetrics: ['glucose'],
};

describe('SyncStatusDetails', () => {
  it('writes its dates as the rest of the device section (YYYY-MM-DD HH:mm), the count with separators', async () => {
    mockApi({ 'GET /api/deviceSync/participant/4': { body: { connections: [CONNECTION] } } });
    renderWithProviders(<SyncStatusDetails participantId={4} brand="Dexcom" />);
    const local = (iso: string) => dayjs(iso).format('YYYY-MM-DD HH:mm');
    expect((await screen.findByTestId('device-sync-last-Dexcom')).textContent).toBe(
      `Last sync: ${local(CONNECTION.lastSyncAt!)}`,
    );
    expect(screen.getByTestId('device-sync-rows-Dexcom').textContent).toBe(
      `Readings stored: 8,834 (${local(CONNECTION.earliestReading!)} – ${local(CONNECTION.latestReading!)})`,
    );
  });
});
