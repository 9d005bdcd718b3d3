import {
  datesBetween,
  type FitbitResourceRequest,
} from '@trialpulse/shared/device-data/fitbit-resource-path';
import {
  fitbitActivityLogListResponseSchema,
  fitbitFoodLogResponseSchema,
  fitbitFoodSeriesResponseSchema,
  type FitbitActivityLogListResponse,
  type FitbitFoodLogResponse,
} from '@trialpulse/shared/device-data/fitbit-shapes';
import {
  bodyOf,
  list,
  localTime,
  logListFromGoogle,
  num,
  offsetOf,
  record,
  round,
  secondsOf,
  settled,
  type FitbitFamily,
  type Json,
} from './fitbit-family';
import { isEmptySeries } from './fitbit-data.translator';

/**
 * Food logs and their daily series (provider-apis §1.12) and the activity log list (§1.13)
 * from Google Health's nutrition-log, hydration-log and exercise types. Live only: sync
 * stores none of them (decision 0062).
 */

type FoodsLog = Extract<FitbitResourceRequest, { kind: 'foods-log' }>;
type FoodsSeries = Extract<FitbitResourceRequest, { kind: 'foods-series' }>;
type ActivityList = Extract<FitbitResourceRequest, { kind: 'activities-list' }>;

/** Fitbit's meal type ids (provider-apis §1.12). */
const MEAL_TYPE_ID: Record<string, number> = {
  BREAKFAST: 1,
  BEFORE_LUNCH: 2,
  LUNCH: 3,
  BEFORE_DINNER: 4,
  DINNER: 5,
  SNACK: 7,
  ANYTIME: 7,
  BEFORE_BREAKFAST: 7,
  AFTER_DINNER: 7,
};

const grams = (value: unknown) => num(record(value).grams) ?? 0;

export const foodsLogFamily: FitbitFamily<FoodsLog> = {
  async google(request, api) {
    const [foods, water] = await settled([
      api.listCivil('nutrition-log', 'interval.civil_start_time', request.date, request.date),
      api.listCivil('hydration-log', 'interval.civil_start_time', request.date, request.date),
    ]);
    const summary = { calories: 0, carbs: 0, fat: 0, fiber: 0, protein: 0, sodium: 0, water: 0 };
    const logs = foods
      .map((point) => {
        const log = bodyOf(point, 'nutritionLog');
        const interval = record(log.interval);
        const local = localTime(String(interval.startTime), offsetOf(interval.startUtcOffset));
        const nutrient = (name: string) =>
          grams(list(log.nutrients).find((entry) => entry.nutrient === name)?.quantity);
        const serving = record(log.serving);
        const amount = num(serving.amount) ?? 1;
        const unit =
          typeof serving.foodMeasurementUnitDisplayName === 'string'
            ? serving.foodMeasurementUnitDisplayName
            : 'serving';
        const values = {
          calories: num(record(log.energy).kcal) ?? 0,
          carbs: grams(log.totalCarbohydrate),
          fat: grams(log.totalFat),
          fiber: nutrient('DIETARY_FIBER'),
          protein: nutrient('PROTEIN'),
          // Fitbit's sodium is in mg.
          sodium: round(nutrient('SODIUM') * 1000, 3),
        };
        for (const key of Object.keys(values) as Array<keyof typeof values>)
          summary[key] = round(summary[key] + values[key], 3);
        return {
          local,
          entry: {
            isFavorite: false,
            logDate: local.slice(0, 10),
            logId: Date.parse(`${local}Z`),
            loggedFood: {
              amount,
              calories: values.calories,
              mealTypeId: MEAL_TYPE_ID[String(log.mealType)] ?? 7,
              name: String(log.foodDisplayName ?? ''),
              unit: { name: unit, plural: unit },
            },
            nutritionalValues: values,
          },
        };
      })
      .filter((log) => log.local.startsWith(request.date))
      .sort((a, b) => (a.local < b.local ? -1 : 1))
      .map((log) => log.entry);
    for (const point of water)
      summary.water = round(
        summary.water +
          (num(record(bodyOf(point, 'hydrationLog').amountConsumed).milliliters) ?? 0),
        3,
      );
    const answer: FitbitFoodLogResponse = { foods: logs, summary };
    return answer;
  },
  legacyPath: (request) => `/1/user/-/foods/log/date/${request.date}.json`,
  legacySchema: fitbitFoodLogResponseSchema,
  isEmpty: (answer) => {
    const body = answer as FitbitFoodLogResponse;
    return body.foods.length === 0 && !body.summary.water;
  },
};

/** caloriesIn (kcal, integer) or water (ml, one decimal) per day, from Google's daily rollups. */
export const foodsSeriesFamily: FitbitFamily<FoodsSeries> = {
  async google(request, api) {
    const water = request.resource === 'water';
    const points = await api.dailyRollUp(
      water ? 'hydration-log' : 'nutrition-log',
      request.start,
      request.end,
      90,
    );
    const byDate = new Map(
      points.map((point) => [
        point.date,
        water
          ? (num(record(point.values.amountConsumed).millilitersSum) ?? 0)
          : (num(record(point.values.energy).kcalSum) ?? 0),
      ]),
    );
    return {
      [`foods-log-${request.resource}`]: datesBetween(request.start, request.end).map(
        (dateTime) => {
          const value = byDate.get(dateTime) ?? 0;
          return { dateTime, value: water ? value.toFixed(1) : String(Math.round(value)) };
        },
      ),
    };
  },
  legacyPath: (request) =>
    `/1/user/-/foods/log/${request.resource}/date/${request.start}/${request.end}.json`,
  legacySchema: fitbitFoodSeriesResponseSchema.refine((body) => Object.keys(body).length > 0),
  isEmpty: (answer) => isEmptySeries(answer as Record<string, unknown>),
};

/** An exercise session as a Fitbit activity log; `startTime` carries the offset, as Fitbit's. */
function activityLogOf(point: Json) {
  const exercise = bodyOf(point, 'exercise');
  const interval = record(exercise.interval);
  const metrics = record(exercise.metricsSummary);
  const offset = offsetOf(interval.startUtcOffset);
  const local = localTime(String(interval.startTime), offset);
  const sign = offset < 0 ? '-' : '+';
  const zone = `${sign}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}:${String(Math.abs(offset) % 60).padStart(2, '0')}`;
  const distance = num(metrics.distanceMillimeters);
  const heartRate = num(metrics.averageHeartRateBeatsPerMinute);
  const steps = num(metrics.steps);
  return {
    activeDuration: Math.round(secondsOf(exercise.activeDuration) * 1000),
    activeZoneMinutes: { totalMinutes: num(metrics.activeZoneMinutes) ?? 0 },
    activityName: String(exercise.displayName ?? exercise.exerciseType ?? 'Activity'),
    ...(heartRate !== null && { averageHeartRate: heartRate }),
    calories: num(metrics.caloriesKcal) ?? 0,
    // km, as metric Fitbit.
    ...(distance !== null && {
      distance: round(distance / 1_000_000, 5),
      distanceUnit: 'Kilometer',
    }),
    duration: Date.parse(String(interval.endTime)) - Date.parse(String(interval.startTime)),
    ...(typeof exercise.updateTime === 'string' && { lastModified: exercise.updateTime }),
    logId: Date.parse(`${local}Z`),
    logType: 'auto_detected',
    startTime: `${local}${zone}`,
    ...(steps !== null && { steps }),
  };
}

/**
 * `activities/list.json`: the `limit` logs before a date (newest first) or from a date
 * (oldest first), as Fitbit pages them; `next` is left empty (one page per request).
 */
export const activityLogListFamily: FitbitFamily<ActivityList> = {
  async google(request, api) {
    const { logs, pagination } = await logListFromGoogle(request, api, {
      dataType: 'exercise',
      member: 'exercise.interval.civil_start_time',
      toLog: activityLogOf,
    });
    const answer: FitbitActivityLogListResponse = { activities: logs, pagination };
    return answer;
  },
  legacyPath: (request) =>
    `/1/user/-/activities/list.json?${request.beforeDate ? `beforeDate=${request.beforeDate}` : `afterDate=${request.afterDate}`}&sort=${request.sort}&offset=0&limit=${request.limit}`,
  legacySchema: fitbitActivityLogListResponseSchema,
  isEmpty: (answer) => (answer as FitbitActivityLogListResponse).activities.length === 0,
};
