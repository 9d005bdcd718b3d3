import { describe, expect, it } from 'vitest';
import {
  DEXCOM_MESSAGES,
  dexcomQueryString,
  kgToLbs,
  omronQuerySchema,
  parseDexcomQuery,
  OMRON_MESSAGES,
} from './device-data.schemas';

describe('the Dexcom query grammar (decision 0055)', () => {
  it('reads UTC times, an inclusive bare end date and the record types', () => {
    expect(parseDexcomQuery('startDate=2026-11-01&endDate=2026-11-02')).toEqual({
      ok: true,
      query: {
        start: new Date('2026-11-01T00:00:00Z'),
        end: new Date('2026-11-03T00:00:00Z'),
        records: ['egvs', 'events', 'calibrations', 'devices'],
      },
    });
    expect(
      parseDexcomQuery(
        'startDate=2026-11-01T06:30:00&endDate=2026-11-01T07:00&records=events,egvs',
      ),
    ).toEqual({
      ok: true,
      query: {
        start: new Date('2026-11-01T06:30:00Z'),
        end: new Date('2026-11-01T07:00:00Z'),
        records: ['egvs', 'events'],
      },
    });
  });

  it('round-trips what the web sends', () => {
    const range = {
      start: new Date('2026-11-01T10:00:00Z'),
      end: new Date('2026-11-15T10:00:00Z'),
      records: ['egvs'] as const,
    };
    expect(parseDexcomQuery(dexcomQueryString(range))).toEqual({
      ok: true,
      query: { ...range, records: ['egvs'] },
    });
  });

  it.each([
    ['startDate=2026-11-01', DEXCOM_MESSAGES.query],
    ['startDate=2026-11-01&endDate=2026-11-02&limit=3', DEXCOM_MESSAGES.query],
    ['startDate=01/11/2026&endDate=2026-11-02', DEXCOM_MESSAGES.startDate],
    ['startDate=2026-11-01&endDate=2026-13-02', DEXCOM_MESSAGES.endDate],
    ['startDate=2026-11-02T00:00:00&endDate=2026-11-01T00:00:00', DEXCOM_MESSAGES.order],
    ['startDate=2026-01-01&endDate=2026-06-01', DEXCOM_MESSAGES.tooLong],
    ['startDate=2026-11-01&endDate=2026-11-02&records=alerts', DEXCOM_MESSAGES.records],
  ])('refuses %s', (text, message) => {
    expect(parseDexcomQuery(text)).toEqual({ ok: false, message });
  });
});

describe('the Omron query', () => {
  it('takes the spec limits and defaults the order to newest first', () => {
    expect(omronQuerySchema.parse({ queryStr: 'weight', since: '2026-11-01', limit: 0 })).toEqual({
      queryStr: 'weight',
      since: '2026-11-01',
      limit: 0,
      sortOrder: 'desc',
    });
    const refused = omronQuerySchema.safeParse({ queryStr: 'activity', since: '', limit: 5 });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues.map((issue) => issue.message)).toEqual([
      OMRON_MESSAGES.category,
      OMRON_MESSAGES.since,
      OMRON_MESSAGES.limit,
    ]);
  });

  it('converts kg to lbs as the spec does', () => {
    expect(kgToLbs(70)).toBe(154.3);
  });
});
