import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { baseHandlers, mockApi } from '@/testing/mock-api';
import { freezeDateAt } from '@/testing/clock';
import { renderWithProviders } from '@/testing/render-app';
import { Footer } from './footer';

describe('footer', () => {
  // The year shown is the clock's: a fixed one, not the real year (which may turn mid-test).
  beforeEach(() => freezeDateAt(new Date(2031, 5, 15, 12, 0, 0)));
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows the year, the server version and the contact link', async () => {
    mockApi(baseHandlers({ kind: 'signed-out' }));
    renderWithProviders(<Footer />);

    await waitFor(() => expect(screen.getByTestId('app-version').textContent).toBe('v1.4.2'));
    expect(screen.getByTestId('footer-year').textContent).toBe('2031');
    expect(screen.getByRole('link', { name: 'Contact Us' }).getAttribute('href')).toBe(
      '/ContactUsForm/',
    );
  });

  it('opens the privacy policy and the terms and conditions', async () => {
    mockApi(baseHandlers({ kind: 'signed-out' }));
    renderWithProviders(<Footer />);

    fireEvent.click(screen.getByRole('button', { name: 'Privacy Policy' }));
    expect(await screen.findByRole('dialog', { name: 'Privacy Policy' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    fireEvent.click(screen.getByRole('button', { name: 'Terms and Conditions' }));
    expect(await screen.findByRole('dialog', { name: 'Terms and Conditions' })).toBeTruthy();
  });
});
