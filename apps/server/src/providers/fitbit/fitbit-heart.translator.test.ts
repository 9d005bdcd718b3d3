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
