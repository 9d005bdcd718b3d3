import {
  FITBIT_ACTIVITY_SERIES,
  datesBetween,
  type FitbitActivitySeries,
  type FitbitResourceRequest,
} from '@trialpulse/shared/device-data/fitbit-resource-path';
import { fitbitActivitySeriesResponseSchema, type FitbitActivitySeriesResponse } from '@trialpulse/shared/device-data/fitbit-shapes';
import type { DailyRollupPoint } from '../../devices/fitbit/google-health.client';
import type { StoredReading } from '../../sync/readings.service';

/**
 * Turns stored readings and Google Health rollups into the legacy Fitbit Web API's shapes
 * (provider-apis §1.5), so the data page reads one format whatever answered. Both paths go
 * through `formatValue`, so a stored and a live answer for the same day are the same string.
 */

/** The Google Health data type and rollup field per legacy resource, and its value in catalog units. */
export const GOOGLE_SERIES: Record<
  FitbitActivitySeries,
  { dataType: string; maxDays: number; valueOf: (values: Record<string, unknown>) => number }
> = {
  steps: { dataType: 'steps', maxDays: 90, valueOf: (v) => Number(v.countSum ?? 0) },
  // millimetres → km, the catalog's (and metric Fitbit's) unit.
  distance: { dataType: 'distance', maxDays: 90, valueOf: (v) => Number(v.millimetersSum ?? 0) / 1_000_000 },
  floors: { dataType: 'floors', maxDays: 90, valueOf: (v) => Number(v.countSum ?? 0) },
  // total-calories rolls up at most 14 days at a time (facts §6).
  calories: { dataType: 'total-calories', maxDays: 14, valueOf: (v) => Number(v.kcalSum ?? 0) },
};

/** Fitbit's strings: distance a decimal (5 places, as Fitbit), the rest integers. */
export function formatValue(resource: FitbitActivitySeries, value: number): string {
  if (resource === 'distance') return String(Math.round(value * 100_000) / 100_000);
  return String(Math.round(value));
}

function seriesOf(request: FitbitResourceRequest, values: Map<string, number>): FitbitActivitySeriesResponse {
  return {
    [`activities-${request.resource}`]: datesBetween(request.start, request.end).map((dateTime) => ({
      dateTime,
      // A day with nothing recorded is "0", as Fitbit answers it.
      value: formatValue(request.resource, values.get(dateTime) ?? 0),
    })),
  };
}

/** Daily readings (stored at the civil date's 00:00 UTC) as the series. */
export function seriesFromReadings(request: FitbitResourceRequest, readings: readonly StoredReading[]) {
  const metricKey = FITBIT_ACTIVITY_SERIES[request.resource];
  const values = new Map<string, number>();
  for (const reading of readings) {
    if (reading.metricKey !== metricKey || reading.value === null) continue;
    const date = reading.recordedAt.toISOString().slice(0, 10);
    values.set(date, (values.get(date) ?? 0) + reading.value);
  }
  return seriesOf(request, values);
}

/** Google Health dailyRollUp windows as the series. */
export function seriesFromRollups(request: FitbitResourceRequest, points: readonly DailyRollupPoint[]) {
  const { valueOf } = GOOGLE_SERIES[request.resource];
  return seriesOf(request, new Map(points.map((point) => [point.date, valueOf(point.values)])));
}

/** A legacy API answer, checked against the shape we promise. */
export function seriesFromLegacy(request: FitbitResourceRequest, body: unknown) {
  const parsed = fitbitActivitySeriesResponseSchema.safeParse(body);
  const key = `activities-${request.resource}`;
  if (!parsed.success || !parsed.data[key]) return null;
  return { [key]: parsed.data[key] };
}

/** No data: an empty series or every day zero (decision 0060) — the same rule for every source. */
export function isEmptySeries(series: FitbitActivitySeriesResponse): boolean {
  return Object.values(series).every((entries) => entries.every((entry) => Number(entry.value) === 0));
}
