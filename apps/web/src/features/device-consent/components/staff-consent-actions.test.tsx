import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { DEVICE_MESSAGES } from '@trialpulse/shared';
import { renderWithProviders } from '@/testing/render-app';
import { PARTICIPANT, TRIAL, mockDeviceApi, signedIn } from '../test-fixtures';
import { StaffConsentActions } from './staff-consent-actions';

/** The actions under a key the test can change: a re-mount, as a route or query may cause. */
function Remountable() {
  const [generation, setGeneration] = useState(0);
  return (
    <>
      <button type="button" onClick={() => setGeneration((value) => value + 1)}>
        Re-mount
      </button>
      <StaffConsentActions
        key={generation}
        brand="Fitbit"
        participant={PARTICIPANT}
        trial={TRIAL}
        canEmail
      />
    </>
  );
}

describe('StaffConsentActions', () => {
  it('confirms a sent consent email even when the page re-mounted while it was sent', async () => {
    let answer: (reply: { body: unknown }) => void = () => undefined;
    const { calls } = mockDeviceApi(signedIn(), {
      'POST /api/participantConsentEmail': () =>
        new Promise((resolve) => {
          answer = resolve;
        }),
    });
    renderWithProviders(<Remountable />);
    fireEvent.click(await screen.findByRole('button', { name: 'Send consent link' }));
    await waitFor(() =>
      expect(calls.filter((call) => call.url === '/api/participantConsentEmail')).toHaveLength(1),
    );

    fireEvent.click(screen.getByRole('button', { name: 'Re-mount' }));
    answer({ body: { message: DEVICE_MESSAGES.consentEmailSent } });

    expect((await screen.findByTestId('app-toast')).textContent).toContain(
      DEVICE_MESSAGES.consentEmailSent,
    );
  });
});
