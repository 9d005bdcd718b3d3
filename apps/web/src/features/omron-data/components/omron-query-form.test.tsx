import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { OMRON_MESSAGES } from '@trialpulse/shared/device-data/device-data.schemas';
import { freezeDateAt } from '@/testing/clock';
import { OmronQueryForm } from './omron-query-form';
import { EMPTY_OMRON_FORM, daysBack, defaultOmronForm } from '../utils/omron-form';

afterEach(() => vi.useRealTimers());

describe('OmronQueryForm', () => {
  it('shows the three required messages on an empty form and submits nothing', async () => {
    const onSubmit = vi.fn();
    render(<OmronQueryForm initial={EMPTY_OMRON_FORM} onSubmit={onSubmit} busy={false} />);
    fireEvent.click(screen.getByTestId('omron-query-submit'));
    expect(await screen.findByText(OMRON_MESSAGES.category)).toBeTruthy();
    expect(screen.getByText(OMRON_MESSAGES.since)).toBeTruthy();
    expect(screen.getByText(OMRON_MESSAGES.limit)).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('refuses a start date in the future', async () => {
    const onSubmit = vi.fn();
    render(
      <OmronQueryForm
        initial={{ ...defaultOmronForm(), since: daysBack(-2) }}
        onSubmit={onSubmit}
        busy={false}
      />,
    );
    fireEvent.click(screen.getByTestId('omron-query-submit'));
    expect(await screen.findByText(OMRON_MESSAGES.sinceInFuture)).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('submits the default query: blood pressure, 7 days back, All', async () => {
    const onSubmit = vi.fn();
    render(<OmronQueryForm initial={defaultOmronForm()} onSubmit={onSubmit} busy={false} />);
    fireEvent.click(screen.getByTestId('omron-query-submit'));
    await waitFor(() => expect(onSubmit).toHaveBeenCalled());
    expect(onSubmit.mock.calls[0]![0]).toEqual({
      category: 'bloodpressure',
      since: daysBack(7),
      limit: '0',
    });
  });

  it('Clear empties the form', async () => {
    const onSubmit = vi.fn();
    render(<OmronQueryForm initial={defaultOmronForm()} onSubmit={onSubmit} busy={false} />);
    fireEvent.click(screen.getByTestId('omron-query-clear'));
    fireEvent.click(screen.getByTestId('omron-query-submit'));
    expect(await screen.findByText(OMRON_MESSAGES.category)).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('a date shortcut sets the start date and submits; an empty category keeps the spec message', async () => {
    freezeDateAt();
    const onSubmit = vi.fn();
    const { unmount } = render(
      <OmronQueryForm
        initial={{ category: 'bloodpressure', since: '', limit: '0' }}
        onSubmit={onSubmit}
        busy={false}
      />,
    );
    fireEvent.click(screen.getByTestId('omron-shortcuts-30'));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0]![0]).toEqual({
      category: 'bloodpressure',
      since: '2026-10-22',
      limit: '0',
    });
    expect(screen.getByTestId('omron-shortcuts-30').getAttribute('aria-pressed')).toBe('true');
    unmount();

    render(<OmronQueryForm initial={EMPTY_OMRON_FORM} onSubmit={onSubmit} busy={false} />);
    fireEvent.click(screen.getByTestId('omron-shortcuts-7'));
    expect(await screen.findByText(OMRON_MESSAGES.category)).toBeTruthy();
    expect(screen.queryByText(OMRON_MESSAGES.since)).toBeNull();
    expect(onSubmit).toHaveBeenCalledTimes(1);
  });
});
