import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { DEVICE_MESSAGES } from '@trialpulse/shared';
import { renderWithProviders } from '@/testing/render-app';
import { connection, mockDevicesApi } from '../testing/device-fixtures';
import { WhenLinked } from './when-linked';

const view = <span data-testid="brand-view">the Omron tile</span>;

describe('WhenLinked', () => {
  it('a brand never linked: says so and does not show the view that would ask for its data', async () => {
    mockDevicesApi('User', {
      'GET /api/participantConnections/2': {
        body: { connections: [connection(2, 'Omron', { status: 'not_authorized' })] },
      },
    });
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

  it.each(['authorized', 'revoked', 'needs_reconsent'] as const)(
    'a %s connection shows the view (stored readings may answer)',
    async (status) => {
      mockDevicesApi('User', {
        'GET /api/participantConnections/2': {
          body: { connections: [connection(2, 'Omron', { status, upstream: 'omron' })] },
        },
      });
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
