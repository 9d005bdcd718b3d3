import { describe, expect, it } from 'vitest';
import {
  calendarDateSchema,
  calendarDateTimeSchema,
  DATE_MESSAGES,
  isCalendarDate,
  isCalendarDateTime,
} from './dates';
import { toListQueryParams, PAGING } from './paging';

describe('calendar dates (decision 0127)', () => {
  it.each(['2026-02-28', '2024-02-29', '1900-01-01', '2100-12-31', '2026-12-31'])(
    'accepts %s',
    (text) => {
      expect(isCalendarDate(text)).toBe(true);
      expect(calendarDateSchema().safeParse(text).success).toBe(true);
    },
  );

  it.each([
    '2026-02-30',
    '2026-02-29',
    '2100-02-29',
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '0000-01-01',
    '1899-12-31',
    '2101-01-01',
    '9999-12-31',
    '2026-1-01',
    ' 2026-01-01',
    'x'.repeat(10_000),
  ])('refuses %s with the shared message', (text) => {
    expect(isCalendarDate(text)).toBe(false);
    const result = calendarDateSchema().safeParse(text);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(DATE_MESSAGES.date);
  });

  it('date-times: a calendar date, a real time, a time zone when required', () => {
    for (const ok of [
      '2026-03-01T00:00:00Z',
      '2026-03-01T23:59:59.123+01:00',
      '2026-03-01T08:00-05:30',
    ]) {
      expect([ok, calendarDateTimeSchema().safeParse(ok).success]).toEqual([ok, true]);
    }
    for (const bad of [
      '0000-01-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '9999-12-31T00:00:00Z',
      '2026-03-01T24:00:00Z',
      '2026-03-01T00:00:00',
      '2026-03-01',
      '2026-03-01T00:00:00+25:00',
    ]) {
      const result = calendarDateTimeSchema().safeParse(bad);
      expect([bad, result.success, result.error?.issues[0]?.message]).toEqual([
        bad,
        false,
        DATE_MESSAGES.dateTime,
      ]);
    }
    expect(isCalendarDateTime('2026-03-01T10:00', { offset: 'none' })).toBe(true);
    expect(isCalendarDateTime('2026-03-01T10:00Z', { offset: 'none' })).toBe(false);
  });
});

describe('list filter length (decision 0128)', () => {
  it("cuts a saved state's longer filter to what the server accepts", () => {
    const params = toListQueryParams({ pageIndex: 0, pageSize: 10, globalFilter: 'y'.repeat(999) });
    expect(params.filter).toBe('y'.repeat(PAGING.maxFilterLength));
  });
});
