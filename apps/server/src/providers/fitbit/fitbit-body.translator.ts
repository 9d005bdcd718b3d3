import {
  datesBetween,
  type FitbitResourceRequest,
} from '@trialpulse/shared/device-data/fitbit-resource-path';
import {
  fitbitCardioScoreResponseSchema,
  fitbitFatResponseSchema,
  fitbitSpo2ResponseSchema,
  fitbitWeightResponseSchema,
  type FitbitCardioScoreResponse,
  type FitbitFatResponse,
  type FitbitSpo2Response,
  type FitbitWeightResponse,
} from '@trialpulse/shared/device-data/fitbit-shapes';
import type { StoredReading } from '../../modules/sync/readings.service';
import {
  bodyOf,
  dateOfObject,
  deviceOf,
  instantsOfDailyReadings,
  instantsOfDays,
  localTime,
  num,
  offsetOf,
  record,
  round,
  settled,
  type FitbitFamily,
} from './fitbit-family';

/**
 * Body weight and fat logs (provider-apis §1.9), SpO2 (§1.10) and cardio fitness (§1.11)
 * from Google Health or stored readings (decision 0062).
 */

type BodyLog = Extract<FitbitResourceRequest, { kind: 'body-log' }>;
type Spo2 = Extract<FitbitResourceRequest, { kind: 'spo2' }>;
type CardioScore = Extract<FitbitResourceRequest, { kind: 'cardioscore' }>;

/** One measurement, whichever source: its instant, offset (minutes), value and device. */
type Measurement = { at: Date; offset: number; value: number; device: string | null };

/**
 * Weight (kg, 2 decimals) or fat (%, 2 decimals) logs of the days: local date and time,
 * `logId` the local epoch ms (as Fitbit), `source` the measuring device's name or "API" for
 * a manual entry. `fat` and `bmi` join a weight log measured at the same instant; Google has
 * no BMI type, so only readings the legacy API's sync stored carry one.
 */
function logsOf(
  request: BodyLog,
  weights: Measurement[],
  fats: Measurement[],
  bmis: Measurement[] = [],
): FitbitWeightResponse | FitbitFatResponse {
  const fatAt = new Map(fats.map((fat) => [fat.at.getTime(), fat.value]));
  const bmiAt = new Map(bmis.map((bmi) => [bmi.at.getTime(), bmi.value]));
  const common = (entry: Measurement) => {
    const local = localTime(entry.at, entry.offset);
    return {
      date: local.slice(0, 10),
      logId: Date.parse(`${local}Z`),
      source: entry.device ?? 'API',
      time: local.slice(11, 19),
    };
  };
  const inRange = (entry: Measurement) => {
    const date = localTime(entry.at, entry.offset).slice(0, 10);
    return date >= request.start && date <= request.end;
  };
  const sorted = (entries: Measurement[]) =>
    entries.filter(inRange).sort((a, b) => a.at.getTime() - b.at.getTime());
  if (request.resource === 'fat') {
    return { fat: sorted(fats).map((entry) => ({ ...common(entry), fat: round(entry.value, 2) })) };
  }
  return {
    weight: sorted(weights).map((entry) => {
      const fat = fatAt.get(entry.at.getTime());
      const bmi = bmiAt.get(entry.at.getTime());
      const { date, logId, source, time } = common(entry);
      return {
        ...(bmi !== undefined && { bmi: round(bmi, 2) }),
        date,
        ...(fat !== undefined && { fat: round(fat, 2) }),
        logId,
        source,
        time,
        weight: round(entry.value, 2),
      };
    }),
  };
}

const fromReadings = (readings: readonly StoredReading[], metricKey: string): Measurement[] =>
  readings
    .filter((reading) => reading.metricKey === metricKey && reading.value !== null)
    .map((reading) => ({
      at: reading.recordedAt,
      offset: reading.utcOffsetMinutes ?? 0,
      value: reading.value!,
      device: reading.dataSource,
    }));

export const bodyLogFamily: FitbitFamily<BodyLog> = {
  stored: (request) => ({
    metricKeys: request.resource === 'fat' ? ['body_fat'] : ['weight', 'body_fat'],
    // Only a legacy connection's sync stores BMI (Google has none): read, never required.
    ...(request.resource === 'weight' && { alsoRead: ['bmi'] }),
    ...instantsOfDays(request.start, request.end),
  }),
  fromStore: (request, readings) =>
    logsOf(
      request,
      fromReadings(readings, 'weight'),
      fromReadings(readings, 'body_fat'),
      fromReadings(readings, 'bmi'),
    ),
  async google(request, api) {
    const measurements = async (
      dataType: string,
      jsonKey: string,
      read: (body: Record<string, unknown>) => number | null,
    ) => {
      const points = await api.listCivil(
        dataType,
        'sample_time.civil_time',
        request.start,
        request.end,
      );
      return points.flatMap((point): Measurement[] => {
        const body = bodyOf(point, jsonKey);
        const time = record(body.sampleTime);
        const value = read(body);
        if (typeof time.physicalTime !== 'string' || value === null) return [];
        return [
          {
            at: new Date(time.physicalTime),
            offset: offsetOf(time.utcOffset),
            value,
            device: deviceOf(point),
          },
        ];
      });
    };
    const [weights, fats] = await settled([
      request.resource === 'weight'
        ? measurements('weight', 'weight', (body) => {
            const grams = num(body.weightGrams);
            return grams === null ? null : grams / 1000;
          })
        : Promise.resolve([]),
      measurements('body-fat', 'bodyFat', (body) => num(body.percentage)),
    ]);
    return logsOf(request, weights, fats);
  },
  legacyPath: (request) =>
    `/1/user/-/body/log/${request.resource}/date/${request.start}/${request.end}.json`,
  legacySchema: fitbitWeightResponseSchema.or(fitbitFatResponseSchema),
  isEmpty: (answer) => {
    const body = answer as Partial<FitbitWeightResponse & FitbitFatResponse>;
    return (body.weight ?? body.fat ?? []).length === 0;
  },
};

type Spo2Night = { dateTime: string; value: { avg: number; min: number; max: number } };

const spo2Answer = (request: Spo2, nights: Spo2Night[]): FitbitSpo2Response => {
  const sorted = [...nights].sort((a, b) => (a.dateTime < b.dateTime ? -1 : 1));
  return request.single ? (sorted[0] ?? {}) : sorted;
};

/**
 * SpO2 per night (the main sleep's wake date): Google's daily average and bounds as Fitbit's
 * avg/min/max. Stored readings answer it when they hold the bounds (sync keeps them since
 * decision 0064; older readings without them go upstream).
 */
export const spo2Family: FitbitFamily<Spo2> = {
  stored: (request) => ({
    metricKeys: ['spo2'],
    ...instantsOfDailyReadings(request.start, request.end),
  }),
  fromStore(request, readings: readonly StoredReading[]) {
    const nights: Spo2Night[] = [];
    for (const reading of readings) {
      if (reading.metricKey !== 'spo2' || reading.value === null) continue;
      const bounds = record(reading.valueJson);
      const [min, max] = [num(bounds.min), num(bounds.max)];
      if (min === null || max === null) return undefined;
      nights.push({
        dateTime: reading.recordedAt.toISOString().slice(0, 10),
        value: { avg: reading.value, min, max },
      });
    }
    return spo2Answer(request, nights);
  },
  async google(request, api) {
    const nights = (
      await api.listDaily('daily-oxygen-saturation', request.start, request.end)
    ).flatMap((point) => {
      const body = bodyOf(point, 'dailyOxygenSaturation');
      const dateTime = dateOfObject(body.date);
      const [avg, min, max] = [
        num(body.averagePercentage),
        num(body.lowerBoundPercentage),
        num(body.upperBoundPercentage),
      ];
      if (!dateTime || avg === null || min === null || max === null) return [];
      return [{ dateTime, value: { avg, min, max } }];
    });
    return spo2Answer(request, nights);
  },
  legacyPath: (request) =>
    request.single
      ? `/1/user/-/spo2/date/${request.start}.json`
      : `/1/user/-/spo2/date/${request.start}/${request.end}.json`,
  legacySchema: fitbitSpo2ResponseSchema,
  isEmpty: (answer) =>
    Array.isArray(answer) ? answer.length === 0 : !('dateTime' in record(answer)),
};

/** VO2 max as Fitbit's string: the whole number (Google gives one value, never a range). */
const vo2String = (value: number) => String(Math.round(value));

/** Cardio fitness score per day: stored `vo2_max` readings when sync covers the range. */
export const cardioScoreFamily: FitbitFamily<CardioScore> = {
  stored: (request) => ({
    metricKeys: ['vo2_max'],
    ...instantsOfDailyReadings(request.start, request.end),
  }),
  fromStore(request, readings) {
    const byDate = new Map(
      readings
        .filter((reading) => reading.metricKey === 'vo2_max' && reading.value !== null)
        .map((reading) => [reading.recordedAt.toISOString().slice(0, 10), reading.value!]),
    );
    return cardioOf(request, byDate);
  },
  async google(request, api) {
    const byDate = new Map<string, number>();
    for (const point of await api.listDaily('daily-vo2-max', request.start, request.end)) {
      const body = bodyOf(point, 'dailyVo2Max');
      const date = dateOfObject(body.date);
      const value = num(body.vo2Max);
      if (date && value !== null) byDate.set(date, value);
    }
    return cardioOf(request, byDate);
  },
  legacyPath: (request) => `/1/user/-/cardioscore/date/${request.start}/${request.end}.json`,
  legacySchema: fitbitCardioScoreResponseSchema,
  isEmpty: (answer) => (answer as FitbitCardioScoreResponse).cardioScore.length === 0,
};

function cardioOf(request: CardioScore, byDate: Map<string, number>): FitbitCardioScoreResponse {
  return {
    cardioScore: datesBetween(request.start, request.end).flatMap((dateTime) => {
      const value = byDate.get(dateTime);
      return value === undefined ? [] : [{ dateTime, value: { vo2Max: vo2String(value) } }];
    }),
  };
}
