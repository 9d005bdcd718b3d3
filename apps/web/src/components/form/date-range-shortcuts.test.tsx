import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/react';
import { freezeDateAt } from '@/testing/clock';
import { coverText, dayRangeText, lastDays, localDay } from '@/lib/day-range';
import { DateRangeShortcuts } from './date-range-shortcuts';

afterEach(() => vi.useRealTimers());

describe('lastDays and the range texts', () => {
  it('counts today as the last of the N days', () => {
    expect(lastDays(7, '2026-11-18')).toEqual({ start: '2026-11-12', end: '2026-11-18' });
    expect(lastDays(14, '2026-11-18')).toEqual({ start: '2026-11-05', end: '2026-11-18' });
    expect(lastDays(30, '2026-03-01')).toEqual({ start: '2026-01-31', end: '2026-03-01' });
    expect(lastDays(90, '2026-01-15')).toEqual({ start: '2025-10-18', end: '2026-01-15' });
  });

  it('writes a range the short way, across months and years', () => {
    expect(dayRangeText({ start: '2026-11-12', end: '2026-11-18' })).toBe('12–18 Nov 2026');
    expect(dayRangeText({ start: '2026-11-28', end: '2026-12-04' })).toBe('28 Nov – 4 Dec 2026');
    expect(dayRangeText({ start: '2026-12-28', end: '2027-01-03' })).toBe(
      '28 Dec 2026 – 3 Jan 2027',
    );
    expect(coverText({ start: '2026-11-12', end: '2026-11-18' })).toBe('7 days: 12–18 Nov');
  });
});

describe('DateRangeShortcuts', () => {
  it('hands the form the last 7, 14, 30 or 90 days ending its today, and marks the current one', () => {
    freezeDateAt();
    const today = localDay(new Date());
    expect(today).toBe('2026-11-20');
    const onPick = vi.fn();
    render(
      <DateRangeShortcuts
        today={today}
        value={{ start: '2026-11-07', end: '2026-11-20' }}
        onPick={onPick}
      />,
    );
    expect(
      screen.getAllByRole('button').map((button) => button.getAttribute('aria-label')),
    ).toEqual(['Last 7 days', 'Last 14 days', 'Last 30 days', 'Last 90 days']);
    expect(screen.getByTestId('date-shortcuts-14').getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByTestId('date-shortcuts-7').getAttribute('aria-pressed')).toBe('false');
    fireEvent.click(screen.getByTestId('date-shortcuts-7'));
    fireEvent.click(screen.getByTestId('date-shortcuts-90'));
    expect(onPick.mock.calls).toEqual([
      [{ start: '2026-11-14', end: '2026-11-20' }, 7],
      [{ start: '2026-08-23', end: '2026-11-20' }, 90],
    ]);
  });
});
