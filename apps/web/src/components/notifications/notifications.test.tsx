import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { LIMITS } from '@trialpulse/shared';
import { NotificationsProvider, useNotify } from '.';

function Trigger({ message }: { message: string }) {
  const notify = useNotify();
  return <button onClick={() => notify(message, 'success')}>notify {message}</button>;
}

/** Clicks a trigger and lets the lazily loaded toast mount (it loads with the first message). */
async function notifyBy(text: string) {
  fireEvent.click(screen.getByText(text));
  await act(async () => {
    await import('./toast');
  });
}

function renderToasts() {
  return render(
    <NotificationsProvider>
      <Trigger message="Trial saved" />
      <Trigger message="Participant added" />
    </NotificationsProvider>,
  );
}

describe('notifications', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('shows a toast that disappears after 3000 ms', async () => {
    renderToasts();
    await notifyBy('notify Trial saved');

    expect(screen.getByTestId('app-toast').textContent).toContain('Trial saved');

    act(() => vi.advanceTimersByTime(LIMITS.notificationDurationMs - 1));
    expect(screen.queryByTestId('app-toast')).not.toBeNull();

    act(() => vi.advanceTimersByTime(1));
    act(() => vi.advanceTimersByTime(1000)); // exit transition
    expect(screen.queryByTestId('app-toast')).toBeNull();
  });

  it('closes at once with the close button', async () => {
    renderToasts();
    await notifyBy('notify Trial saved');

    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    act(() => vi.advanceTimersByTime(1000));

    expect(screen.queryByTestId('app-toast')).toBeNull();
  });

  it('a newer toast replaces the old one and gets its own 3000 ms', async () => {
    renderToasts();
    await notifyBy('notify Trial saved');
    act(() => vi.advanceTimersByTime(2000));
    await notifyBy('notify Participant added');

    expect(screen.getAllByTestId('app-toast')).toHaveLength(1);
    expect(screen.getByTestId('app-toast').textContent).toContain('Participant added');

    act(() => vi.advanceTimersByTime(2000));
    expect(screen.queryByTestId('app-toast')).not.toBeNull();

    act(() => vi.advanceTimersByTime(1000));
    act(() => vi.advanceTimersByTime(1000)); // exit transition
    expect(screen.queryByTestId('app-toast')).toBeNull();
  });
});
