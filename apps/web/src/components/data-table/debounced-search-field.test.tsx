import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/react';
import { DebouncedSearchField } from './debounced-search-field';

describe('debounced search field', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('applies the text 200 ms after the last keystroke and a clear at once', () => {
    const onChange = vi.fn();
    render(<DebouncedSearchField value="" onChange={onChange} testId="search" />);
    const input = screen.getByTestId('search');

    fireEvent.change(input, { target: { value: 'ca' } });
    vi.advanceTimersByTime(150);
    fireEvent.change(input, { target: { value: 'card' } });
    vi.advanceTimersByTime(199);
    expect(onChange).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onChange).toHaveBeenCalledExactlyOnceWith('card');

    fireEvent.click(screen.getByRole('button', { name: 'Clear search' }));
    expect(onChange).toHaveBeenLastCalledWith('');
    expect((input as HTMLInputElement).value).toBe('');
  });
});
