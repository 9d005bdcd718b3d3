import { describe, expect, it } from 'vitest';
import { parseFitbitResourcePath } from '@trialpulse/shared/device-data/fitbit-resource-path';
import type { StoredReading } from '../../modules/sync/readings.service';
import { heartIntradayFamily } from './fitbit-heart.translator';

/** A stored heart-rate sample at an instant (participant at UTC−5). */
function sample(at: string, bpm: number): StoredReading {
  return {
    metricKey: 'heart_rate',
    recordedAt: new Date(at),
    value: bpm,
    utcOffsetMinutes: -300,
  } as StoredReading;
}

function heartDay(detail: string) {
  const parsed = parseFitbitResourcePath(
    `activities/heart/date/2026-11-20/1d/${detail}.json`,
    '2026-11-24',
  );
  if (!parsed.ok || parsed.request.kind !== 'heart-intraday') throw new Error('bad path');
  return parsed.request;
}

describe('heart rate of one day in the legacy shape', () => {
  // Two sources (the demo's 1-second day and the synced 2–8 s samples) can both hold a
  // sample in one second; the legacy dataset is keyed by wall time, one entry per second.
  it('gives one 1sec entry per second, the rounded mean of its samples', () => {
    const readings = [
      sample('2026-11-20T05:00:00Z', 60),
      sample('2026-11-20T05:00:00.400Z', 63),
      sample('2026-11-20T05:00:01Z', 70),
    ];
    const answer = heartIntradayFamily.fromStore!(heartDay('1sec'), readings) as {
      'activities-heart-intraday': { dataset: { time: string; value: number }[] };
    };
    expect(answer['activities-heart-intraday'].dataset).toEqual([
      { time: '00:00:00', value: 62 },
      { time: '00:00:01', value: 70 },
    ]);
  });

  it('gives one 1min entry per minute, the rounded mean of its samples', () => {
    const readings = [
      sample('2026-11-20T05:00:05Z', 60),
      sample('2026-11-20T05:00:50Z', 61),
      sample('2026-11-20T05:01:10Z', 80),
    ];
    const answer = heartIntradayFamily.fromStore!(heartDay('1min'), readings) as {
      'activities-heart-intraday': { dataset: { time: string; value: number }[] };
    };
    expect(answer['activities-heart-intraday'].dataset).toEqual([
      { time: '00:00:00', value: 61 },
      { time: '00:01:00', value: 80 },
    ]);
  });
});

describe('heart rate of one day, samples out of order and at the edges', () => {
  // The store hands samples in time order; a provider's answer need not be. The day and the
  // time window are the participant's wall clock (UTC−5 here), both window minutes whole.
  it('keeps the local day and window, and averages a second whose samples are apart in the input', () => {
    const readings = [
      sample('2026-11-20T11:15:00.700Z', 90), // 06:15:00 local, after its partner below
      sample('2026-11-20T04:59:59.999Z', 50), // 23:59:59 the day before: out
      sample('2026-11-20T11:10:00Z', 70), // 06:10:00: the window's first minute
      sample('2026-11-20T11:09:59Z', 69), // 06:09:59: before the window
      sample('2026-11-20T11:15:00Z', 81), // 06:15:00
      sample('2026-11-20T23:44:59Z', 75), // 18:44:59: the window's last minute
      sample('2026-11-20T23:45:00Z', 76), // 18:45:00: after it
      sample('2026-11-21T04:59:59Z', 40), // 23:59:59 local: in the day, out of the window
    ];
    const parsed = parseFitbitResourcePath(
      'activities/heart/date/2026-11-20/1d/1sec/time/06:10/18:44.json',
      '2026-11-24',
    );
    if (!parsed.ok || parsed.request.kind !== 'heart-intraday') throw new Error('bad path');
    const answer = heartIntradayFamily.fromStore!(parsed.request, readings) as {
      'activities-heart-intraday': { dataset: { time: string; value: number }[] };
    };
    expect(answer['activities-heart-intraday'].dataset).toEqual([
      { time: '06:10:00', value: 70 },
      { time: '06:15:00', value: 86 },
      { time: '18:44:59', value: 75 },
    ]);
    const quarter = heartIntradayFamily.fromStore!(heartDay('15min'), readings) as {
      'activities-heart-intraday': { dataset: { time: string; value: number }[] };
    };
    expect(quarter['activities-heart-intraday'].dataset).toEqual([
      { time: '06:00:00', value: 70 }, // 69, 70
      { time: '06:15:00', value: 86 }, // 81, 90
      { time: '18:30:00', value: 75 },
      { time: '18:45:00', value: 76 },
      { time: '23:45:00', value: 40 },
    ]);
  });
});
