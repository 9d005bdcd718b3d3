import { describe, expect, it } from 'vitest';
import {
  civilDayAt,
  civilDays,
  civilDaysIn,
  lastCompleteDays,
  localDayInterval,
  participantToday,
  previousDays,
  readingDay,
  shiftCivilDay,
  trialToday,
} from './civil-days';

describe('civil days', () => {
  it('puts an instant on the participant’s local date, a session on its end', () => {
    const at = new Date('2026-11-21T11:30:00Z');
    expect(civilDayAt(at, 14 * 60)).toBe('2026-11-22');
    expect(civilDayAt(at, -12 * 60)).toBe('2026-11-20');
    expect(civilDayAt(at, null)).toBe('2026-11-21');
    expect(
      readingDay({
        recordedAt: new Date('2026-11-21T04:00:00Z'),
        endAt: new Date('2026-11-21T14:00:00Z'),
        utcOffsetMinutes: -300,
      }),
    ).toBe('2026-11-21');
    // A daily reading: 00:00 UTC of its date, no offset.
    expect(
      readingDay({ recordedAt: new Date('2026-11-01T00:00:00Z'), utcOffsetMinutes: null }),
    ).toBe('2026-11-01');
  });

  it('counts the last N complete local days, never today', () => {
    const now = new Date('2026-11-28T13:00:00Z');
    expect(participantToday(now, 14 * 60)).toBe('2026-11-29');
    expect(lastCompleteDays(now, 14 * 60, 7)).toEqual({ start: '2026-11-22', end: '2026-11-28' });
    expect(lastCompleteDays(now, -10 * 60, 7)).toEqual({ start: '2026-11-21', end: '2026-11-27' });
    expect(lastCompleteDays(new Date('2026-11-28T02:00:00Z'), -10 * 60, 7)).toEqual({
      start: '2026-11-20',
      end: '2026-11-26',
    });
    expect(previousDays({ start: '2026-11-22', end: '2026-11-28' })).toEqual({
      start: '2026-11-15',
      end: '2026-11-21',
    });
  });

  it('walks calendar days across a change of daylight saving time and a month', () => {
    expect(civilDays({ start: '2026-10-30', end: '2026-11-02' })).toEqual([
      '2026-10-30',
      '2026-10-31',
      '2026-11-01',
      '2026-11-02',
    ]);
    expect(civilDaysIn({ start: '2026-11-02', end: '2026-11-01' })).toBe(0);
    expect(shiftCivilDay('2026-12-31', 1)).toBe('2027-01-01');
  });

  it('writes a local day as an interval with its offset', () => {
    expect(localDayInterval('2026-11-01', -240, -300)).toEqual({
      start: '2026-11-01T00:00:00-04:00',
      end: '2026-11-02T00:00:00-05:00',
    });
    expect(localDayInterval('2026-11-21', 840)).toEqual({
      start: '2026-11-21T00:00:00+14:00',
      end: '2026-11-22T00:00:00+14:00',
    });
  });

  it('takes a trial’s today as the latest of its participants’ todays (UTC without any)', () => {
    const beforeMidnightUtc = new Date('2026-06-15T23:30:00Z');
    expect(trialToday(beforeMidnightUtc, [-600, 540, null])).toBe('2026-06-16');
    const afterMidnightUtc = new Date('2026-06-16T00:30:00Z');
    expect(trialToday(afterMidnightUtc, [-600])).toBe('2026-06-15');
    expect(trialToday(afterMidnightUtc, [])).toBe('2026-06-16');
  });
});
