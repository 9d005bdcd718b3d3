import { describe, expect, it } from 'vitest';
import { COMPLETENESS_DEFAULTS } from '@trialpulse/shared';
import type { ConnectionHealthRow } from '../devices/device-connections.service';
import type { DailySummary } from '../sync/daily-summary';
import { buildRow, dayRange } from './day-states';

const participant = { id: 7, code: 'P-007' };
const fitbit: ConnectionHealthRow = {
  participantId: 7,
  brand: 'Fitbit',
  status: 'authorized',
  needsReconsent: false,
  battery: 'High',
  batteryLevel: 80,
  lastSyncAt: new Date('2026-06-15T06:00:00Z'),
  connectedAt: new Date('2026-05-01T09:00:00Z'),
};
const worn = (day: string, wearMinutes: number): DailySummary => ({
  participantId: 7,
  day,
  wearMinutes,
  steps: null,
  sleepMinutes: null,
  bpReadings: 0,
  weightReadings: 0,
  cgmReadings: 0,
});
// Early morning: today has only a few hours of wear so far.
const NOW = new Date('2026-06-15T06:30:00Z');
const days = dayRange('2026-06-15', 3);

describe('day states (decision 0111)', () => {
  it('marks today in progress rather than below threshold, and leaves it out of the counts', () => {
    const row = buildRow(
      participant,
      days,
      [worn('2026-06-13', 660), worn('2026-06-14', 700), worn('2026-06-15', 240)],
      [fitbit],
      COMPLETENESS_DEFAULTS,
      NOW,
    );
    expect(row.states).toEqual(['valid', 'valid', 'in_progress']);
    expect(row.expectedDays).toBe(2);
    expect(row.validDays).toBe(2);
    expect(row.validPercent).toBe(100);
    expect(row.belowThreshold).toBe(false);
  });

  it('marks today valid as soon as it passes, and judges yesterday in full', () => {
    const row = buildRow(
      participant,
      days,
      [worn('2026-06-14', 120), worn('2026-06-15', 620)],
      [fitbit],
      COMPLETENESS_DEFAULTS,
      NOW,
    );
    expect(row.states).toEqual(['missing', 'partial', 'valid']);
    expect(row.expectedDays).toBe(3);
    expect(row.validDays).toBe(1);
    expect(row.belowThreshold).toBe(true);
  });

  it('marks today without data in progress, not missing', () => {
    const row = buildRow(participant, days, [], [fitbit], COMPLETENESS_DEFAULTS, NOW);
    expect(row.states).toEqual(['missing', 'missing', 'in_progress']);
    expect(row.expectedDays).toBe(2);
  });
});

describe('participant-local days and first links (decisions 0180, 0181)', () => {
  const omron: ConnectionHealthRow = {
    ...fitbit,
    brand: 'Omron',
    battery: null,
    batteryLevel: null,
    connectedAt: new Date('2026-06-15T05:00:00Z'),
  };
  const day = (date: string, values: Partial<DailySummary>): DailySummary => ({
    ...worn(date, 0),
    ...values,
  });

  it("takes today from the participant's offset: Kiritimati's 15 June is over at 10:30 UTC, Honolulu's 14 June not at 06:30", () => {
    const at = new Date('2026-06-15T10:30:00Z');
    const kiritimati = { offsetMinutes: 14 * 60, firstDataDay: {} };
    const row = buildRow(participant, days, [], [fitbit], COMPLETENESS_DEFAULTS, at, kiritimati);
    expect(row.states).toEqual(['missing', 'missing', 'missing']);
    const honolulu = { offsetMinutes: -10 * 60, firstDataDay: {} };
    expect(
      buildRow(participant, days, [], [fitbit], COMPLETENESS_DEFAULTS, NOW, honolulu).states,
    ).toEqual(['missing', 'in_progress', 'in_progress']);
  });

  it('expects data from the first day with readings when the connection is newer (a re-link)', () => {
    const row = buildRow(participant, days, [], [omron], COMPLETENESS_DEFAULTS, NOW, {
      offsetMinutes: null,
      firstDataDay: { Omron: '2026-06-10' },
    });
    expect(row.states).toEqual(['missing', 'missing', 'in_progress']);
    expect(
      buildRow(participant, days, [], [omron], COMPLETENESS_DEFAULTS, NOW).states.slice(0, 2),
    ).toEqual(['none', 'none']);
  });

  it('under the defaults an Omron day needs one reading; a weigh-in makes it valid', () => {
    const row = buildRow(
      participant,
      days,
      [day('2026-06-13', { weightReadings: 1 })],
      [{ ...omron, connectedAt: new Date('2026-06-01T00:00:00Z') }],
      COMPLETENESS_DEFAULTS,
      NOW,
    );
    expect(row.states).toEqual(['valid', 'missing', 'in_progress']);
    expect(row.belowThreshold).toBe(true);
  });

  it("shows no steps on a day the tracker was not worn (Fitbit's 0 is no measurement)", () => {
    const row = buildRow(
      participant,
      days,
      [day('2026-06-13', { steps: 0 }), day('2026-06-14', { steps: 812, wearMinutes: 30 })],
      [fitbit],
      COMPLETENESS_DEFAULTS,
      NOW,
    );
    expect(row.steps).toEqual([null, 812, null]);
    // 0 steps without a worn minute is no data: missing, not partial.
    expect(row.states.slice(0, 2)).toEqual(['missing', 'partial']);
  });
});
