import { describe, expect, it } from 'vitest';
import type { StoredReading } from '../sync/readings.service';
import { OMH_MAPPINGS, openMHealthSerializer, toOpenMHealth } from './export-standards';

const reading = (overrides: Partial<StoredReading>): StoredReading =>
  ({
    participantId: 7,
    teamId: 1,
    metricKey: 'heart_rate',
    recordedAt: new Date('2026-05-01T08:09:00Z'),
    brand: 'Fitbit',
    utcOffsetMinutes: -300,
    endAt: null,
    value: 61,
    valueJson: null,
    dataSource: null,
    upstream: 'google-health',
    ...overrides,
  }) as StoredReading;

describe('Open mHealth data points as text (decision 0133)', () => {
  const subject = {
    participantId: 7,
    participantCode: 'S-001 "quoted" \\ ＝ é',
  };
  const createdAt = '2026-06-01T00:00:00.000Z';

  it('writes exactly JSON.stringify of the data point object, for every mapped metric and time shape', () => {
    const point = openMHealthSerializer(subject, createdAt);
    const cases: StoredReading[] = [];
    for (const metricKey of Object.keys(OMH_MAPPINGS))
      cases.push(
        reading({ metricKey }),
        reading({ metricKey, value: -2.5 }),
        // A daily reading (00:00 UTC, no offset): the whole day.
        reading({
          metricKey,
          recordedAt: new Date('2026-05-01T00:00:00Z'),
          utcOffsetMinutes: null,
        }),
        reading({ metricKey, endAt: new Date('2026-05-01T09:30:00.250Z') }),
        // Each reading names its own device (decision 0186), quotes and all.
        reading({ metricKey, dataSource: 'Charge "6", \\ é' }),
        reading({
          metricKey,
          brand: 'Dexcom',
          upstream: 'dexcom',
          valueJson: { generation: 'g7', displayDevice: 'android' },
        }),
        reading({ metricKey, upstream: 'demo' }),
      );
    for (const one of cases)
      expect(point(one), one.metricKey).toBe(
        JSON.stringify(toOpenMHealth(one, subject, createdAt)),
      );
    expect(point(reading({ metricKey: 'calories' }))).toBeNull();
    expect(point(reading({ value: null }))).toBeNull();
  });

  it('keeps the data point ids of earlier exports (same reading, same uuid)', () => {
    const text = openMHealthSerializer(subject, createdAt)(reading({}))!;
    expect(JSON.parse(text).header.uuid).toBe('0564a4e6-7fc1-46a6-980c-d6b821dff3dd');
  });
});
