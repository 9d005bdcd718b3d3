import { chosenOption, type FitbitQueryForm } from '@trialpulse/shared/device-data/fitbit-query';
import { timeAxisChart, type EChartOption } from '@/components/charts';
import { kgToLbs, kmToMiles, minutesToHours } from '../../common/utils/units';

/**
 * Turns the legacy Fitbit answers of one query (provider-apis §1.5–§1.13) into what the page
 * shows: table columns and rows, and a chart. Distances become miles and weights pounds
 * (device-data §9); heart-rate zones are drawn as stacked zone bars per day, sleep stages as
 * a hypnogram. Throws when an answer does not have the shape its path asks for (the page
 * then says "Error: Could not prepare Fitbit data for display").
 */
export type ViewColumn = { key: string; header: string };
export type ViewRow = Record<string, string | number | null>;
export type FitbitView = {
  title: string;
  columns: ViewColumn[];
  rows: ViewRow[];
  chart: EChartOption | null;
  chartLabel: string;
};

/** Spec names of the heart-rate zones (§9) for Fitbit's zone names. */
export const HEART_ZONES = [
  { fitbit: 'Out of Range', name: 'OutofRange', color: '#90a4ae' },
  { fitbit: 'Fat Burn', name: 'FatBurn', color: '#fbc02d' },
  { fitbit: 'Cardio', name: 'Cardio', color: '#f57c00' },
  { fitbit: 'Peak', name: 'Peak', color: '#c62828' },
] as const;

/** Sleep stages (§9), deepest lowest, as a hypnogram draws them. */
export const SLEEP_STAGES = ['deep', 'light', 'rem', 'wake'] as const;
const STAGE_COLORS = { deep: '#1a237e', light: '#42a5f5', rem: '#7e57c2', wake: '#ef5350' };

class ShapeError extends Error {}
const fail = (what: string): never => {
  throw new ShapeError(`Unexpected Fitbit answer: ${what}`);
};
const record = (value: unknown, what: string): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : fail(what);
const list = (value: unknown, what: string): unknown[] =>
  Array.isArray(value) ? value : fail(what);
const num = (value: unknown): number | null => {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : null;
};
/** Local midnight of a civil date, or a local date-time without zone (Fitbit's form). */
const at = (dateTime: string) =>
  Date.parse(dateTime.length === 10 ? `${dateTime}T00:00:00` : dateTime);
/** A local date-time (`2026-11-20T07:31:10.000`) as the tables show it: `2026-11-20 07:31`. */
const stamp = (value: unknown, length = 16) =>
  String(value ?? '')
    .replace('T', ' ')
    .slice(0, length);
/** [instant, value] of one column of the rows, at their date (or the time `when` gives). */
function pointsOf<R extends ViewRow>(
  rows: readonly R[],
  key: keyof R & string,
  when: (row: R) => string = (row) => String(row.date),
) {
  return rows.map((row) => [at(when(row)), row[key] as number | null] as const);
}
/** Draws every series of a time chart as bars (daily totals read best so). */
function asBars(chart: EChartOption, barMaxWidth?: number): EChartOption {
  for (const series of chart.series as { type: string; barMaxWidth?: number }[]) {
    series.type = 'bar';
    if (barMaxWidth !== undefined) series.barMaxWidth = barMaxWidth;
  }
  // A bar's height is its value: the axis starts at zero (a 6.5 h night is not a tenth of 7.9 h).
  const axis = chart.yAxis as { min?: unknown; scale?: boolean };
  axis.min = 0;
  axis.scale = false;
  return chart;
}
/** Bars over named categories (days, activities, foods); several series get a legend. */
function categoryBarChart(
  categories: readonly string[],
  unit: string,
  series: readonly { name: string; data: (number | null)[]; color?: string; stack?: string }[],
  options: { bottom?: number; tooltip?: Record<string, unknown> } = {},
): EChartOption {
  const legend = series.length > 1;
  return {
    animation: false,
    tooltip: options.tooltip ?? { trigger: 'axis' },
    ...(legend && { legend: { top: 0 } }),
    grid: { left: 56, right: 24, top: legend ? 36 : 24, bottom: options.bottom ?? 40 },
    xAxis: { type: 'category', data: categories },
    yAxis: { type: 'value', name: unit },
    series: series.map(({ name, data, color, stack }) => ({
      type: 'bar',
      ...(stack && { stack }),
      name,
      ...(color && { itemStyle: { color } }),
      barMaxWidth: 32,
      data,
    })),
  };
}

type SeriesMeta = { label: string; unit: string; convert?: (value: number) => number };
const SERIES_META: Record<string, SeriesMeta> = {
  steps: { label: 'Steps', unit: 'steps' },
  distance: { label: 'Distance', unit: 'mi', convert: kmToMiles },
  floors: { label: 'Floors', unit: 'floors' },
  calories: { label: 'Calories', unit: 'kcal' },
  elevation: { label: 'Elevation', unit: 'm' },
  minutesSedentary: { label: 'Minutes sedentary', unit: 'min' },
  activityCalories: { label: 'Activity calories', unit: 'kcal' },
  minutesLightlyActive: { label: 'Lightly active', unit: 'min' },
  minutesFairlyActive: { label: 'Fairly active', unit: 'min' },
  minutesVeryActive: { label: 'Very active', unit: 'min' },
  weight: { label: 'Weight', unit: 'lbs', convert: kgToLbs },
  fat: { label: 'Body fat', unit: '%' },
  bmi: { label: 'BMI', unit: 'kg/m²' },
  caloriesIn: { label: 'Calories in', unit: 'kcal' },
  water: { label: 'Water', unit: 'mL' },
};

/** `{"activities-steps":[…]}`, `{"body-weight":[…]}`, `{"foods-log-water":[…]}` → resource → entries. */
function seriesOf(
  answer: unknown,
): { resource: string; entries: { dateTime: string; value: number | null }[] }[] {
  const body = record(answer, 'series');
  const found = Object.entries(body)
    .filter(([key, value]) => Array.isArray(value) && !key.endsWith('-intraday'))
    .map(([key, value]) => ({
      resource: key.replace(/^(activities-tracker-|activities-|body-|foods-log-)/, ''),
      entries: list(value, key).map((entry) => {
        const e = record(entry, key);
        if (typeof e.dateTime !== 'string') fail(`${key} dateTime`);
        return { dateTime: e.dateTime as string, value: num(e.value) };
      }),
    }));
  if (found.length === 0) fail('no series');
  return found;
}

function seriesView(answers: unknown[], title: string): FitbitView {
  const all = answers.flatMap(seriesOf);
  const byDate = new Map<string, ViewRow>();
  const columns: ViewColumn[] = [{ key: 'date', header: 'Date' }];
  const chartSeries = all.map(({ resource, entries }) => {
    const meta = SERIES_META[resource] ?? { label: resource, unit: '' };
    const key = resource;
    columns.push({ key, header: meta.unit ? `${meta.label} (${meta.unit})` : meta.label });
    const points = entries.map(({ dateTime, value }) => {
      const shown = value === null ? null : meta.convert ? meta.convert(value) : value;
      const row = byDate.get(dateTime) ?? { date: dateTime };
      row[key] = shown;
      byDate.set(dateTime, row);
      return [at(dateTime), shown] as const;
    });
    return { name: meta.label, points, unit: meta.unit };
  });
  const rows = [...byDate.values()].sort((a, b) => String(a.date).localeCompare(String(b.date)));
  const chart = asBars(
    timeAxisChart({
      unit: chartSeries[0]?.unit ?? '',
      series: chartSeries.map(({ name, points }) => ({ name, points })),
    }),
    24,
  );
  return { title, columns, rows, chart, chartLabel: `${title} per day` };
}

function heartSummary(answer: unknown) {
  const entries = list(record(answer, 'heart')['activities-heart'], 'activities-heart');
  return entries.map((entry) => {
    const e = record(entry, 'activities-heart entry');
    const value = e.value === undefined ? e : record(e.value, 'heart value');
    const zones = list(value.heartRateZones ?? [], 'heartRateZones').map((zone) =>
      record(zone, 'zone'),
    );
    return {
      date: String(e.dateTime),
      resting: num(value.restingHeartRate),
      zones,
    };
  });
}

function restingHeartRateView(answer: unknown): FitbitView {
  const days = heartSummary(answer);
  const rows = days.map((day) => ({ date: day.date, restingHeartRate: day.resting }));
  return {
    title: 'Resting heart rate',
    columns: [
      { key: 'date', header: 'Date' },
      { key: 'restingHeartRate', header: 'Resting heart rate (bpm)' },
    ],
    rows,
    chart: timeAxisChart({
      unit: 'bpm',
      axis: 'heart-rate',
      series: [
        {
          name: 'Resting heart rate',
          color: '#c62828',
          points: pointsOf(rows, 'restingHeartRate'),
        },
      ],
    }),
    chartLabel: 'Resting heart rate per day',
  };
}

function heartZonesView(answer: unknown): FitbitView {
  const days = heartSummary(answer);
  const minutesOf = (zones: Record<string, unknown>[], fitbitName: string) =>
    num(zones.find((zone) => zone.name === fitbitName)?.minutes) ?? 0;
  const rows: ViewRow[] = days.flatMap((day) =>
    HEART_ZONES.map((zone) => {
      const found = day.zones.find((z) => z.name === zone.fitbit);
      const calories = num(found?.caloriesOut);
      return {
        date: day.date,
        zone: zone.name,
        min: num(found?.min),
        max: num(found?.max),
        minutes: num(found?.minutes) ?? 0,
        // Google Health keeps no calories per zone: absent is unknown, not 0 kcal.
        caloriesOut: calories === null ? null : Math.round(calories * 10) / 10,
      };
    }),
  );
  const chart = categoryBarChart(
    days.map((d) => d.date),
    'min',
    HEART_ZONES.map((zone) => ({
      name: zone.name,
      stack: 'zones',
      color: zone.color,
      data: days.map((d) => minutesOf(d.zones, zone.fitbit)),
    })),
    { tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } } },
  );
  return {
    title: 'Heart rate zones',
    columns: [
      { key: 'date', header: 'Date' },
      { key: 'zone', header: 'Zone' },
      { key: 'min', header: 'From (bpm)' },
      { key: 'max', header: 'To (bpm)' },
      { key: 'minutes', header: 'Minutes' },
      { key: 'caloriesOut', header: 'Calories out (kcal)' },
    ],
    rows,
    chart,
    chartLabel: 'Minutes in each heart-rate zone per day',
  };
}

function heartIntradayView(answer: unknown): FitbitView {
  const body = record(answer, 'heart intraday');
  const date = String(
    record(list(body['activities-heart'], 'activities-heart')[0] ?? {}, 'day').dateTime ?? '',
  );
  const intraday = record(body['activities-heart-intraday'], 'activities-heart-intraday');
  const rows = list(intraday.dataset, 'dataset').map((point) => {
    const p = record(point, 'dataset point');
    return { time: String(p.time), heartRate: num(p.value) };
  });
  return {
    title: `Heart rate ${date}`,
    columns: [
      { key: 'time', header: 'Time' },
      { key: 'heartRate', header: 'Heart rate (bpm)' },
    ],
    rows,
    chart: timeAxisChart({
      unit: 'bpm',
      axis: 'heart-rate',
      series: [
        {
          name: 'Heart rate',
          color: '#c62828',
          points: pointsOf(rows, 'heartRate', (r) => `${date}T${r.time}`),
        },
      ],
    }),
    chartLabel: `Heart rate during ${date}`,
  };
}

type SleepLog = Record<string, unknown> & { levels?: unknown };
/** The answer's sleep logs, earliest first. */
function sleepLogs(answer: unknown): SleepLog[] {
  return list(record(answer, 'sleep')['sleep'], 'sleep')
    .map((log) => record(log, 'sleep log'))
    .sort((a, b) => String(a.startTime).localeCompare(String(b.startTime)));
}

function sleepDurationView(answer: unknown): FitbitView {
  const logs = sleepLogs(answer);
  const rows = logs.map((log) => ({
    dateOfSleep: String(log.dateOfSleep ?? ''),
    startTime: stamp(log.startTime),
    endTime: stamp(log.endTime),
    hoursAsleep: minutesToHours(num(log.minutesAsleep) ?? 0),
    timeInBed: minutesToHours(num(log.timeInBed) ?? 0),
    efficiency: num(log.efficiency),
    mainSleep: log.isMainSleep === true ? 'Yes' : 'No',
  }));
  const perNight = new Map<string, number>();
  for (const row of rows)
    perNight.set(row.dateOfSleep, (perNight.get(row.dateOfSleep) ?? 0) + row.hoursAsleep);
  const chart = asBars(
    timeAxisChart({
      unit: 'h',
      series: [
        {
          name: 'Hours asleep',
          color: '#3949ab',
          points: [...perNight].map(
            ([date, hours]) => [at(date), Math.round(hours * 10) / 10] as const,
          ),
        },
      ],
    }),
  );
  return {
    title: 'Sleep duration',
    columns: [
      { key: 'dateOfSleep', header: 'Date of sleep' },
      { key: 'startTime', header: 'Start' },
      { key: 'endTime', header: 'End' },
      { key: 'hoursAsleep', header: 'Asleep (h)' },
      { key: 'timeInBed', header: 'In bed (h)' },
      { key: 'efficiency', header: 'Efficiency (%)' },
      { key: 'mainSleep', header: 'Main sleep' },
    ],
    rows,
    chart,
    chartLabel: 'Hours asleep per night',
  };
}

/** A hypnogram: the stage over time as a step line, deep at the bottom, wake at the top. */
function sleepStagesView(answer: unknown): FitbitView {
  const logs = sleepLogs(answer);
  const rows: ViewRow[] = [];
  const segments: [number, number | null][] = [];
  for (const log of logs) {
    const levels = record(log.levels ?? {}, 'levels');
    const summary = levels.summary ? record(levels.summary, 'levels summary') : {};
    rows.push({
      dateOfSleep: String(log.dateOfSleep ?? ''),
      startTime: stamp(log.startTime),
      // A "classic" log (asleep / restless / awake, when the tracker could not tell the
      // stages) has no stage minutes: the type says why its row is empty.
      type: String(log.type ?? ''),
      ...Object.fromEntries(
        SLEEP_STAGES.map((stage) => [
          stage,
          num(summary[stage] ? record(summary[stage], stage).minutes : null),
        ]),
      ),
    });
    let last: [number, number] | null = null;
    for (const item of list(levels.data ?? [], 'levels data')) {
      const d = record(item, 'level');
      const stage = SLEEP_STAGES.indexOf(String(d.level) as (typeof SLEEP_STAGES)[number]);
      if (stage < 0) continue; // classic logs (asleep / restless / awake) have no stages
      const start = at(String(d.dateTime));
      segments.push([start, stage]);
      last = [start + (num(d.seconds) ?? 0) * 1000, stage];
    }
    if (last) segments.push(last, [last[0] + 1, null]);
  }
  const chart: EChartOption = {
    animation: false,
    tooltip: {
      trigger: 'axis',
      valueFormatter: (value: unknown) =>
        typeof value === 'number' ? (SLEEP_STAGES[value] ?? '') : '',
    },
    grid: { left: 56, right: 24, top: 24, bottom: 64 },
    xAxis: { type: 'time' },
    yAxis: {
      type: 'value',
      min: 0,
      max: 3,
      interval: 1,
      axisLabel: { formatter: (value: number) => SLEEP_STAGES[value] ?? '' },
    },
    dataZoom: [{ type: 'inside' }, { type: 'slider', height: 20, bottom: 12 }],
    visualMap: undefined,
    series: [
      {
        type: 'line',
        name: 'Sleep stage',
        step: 'end',
        showSymbol: false,
        connectNulls: false,
        lineStyle: { width: 2, color: STAGE_COLORS.light },
        data: segments,
      },
    ],
  };
  return {
    title: 'Sleep stages',
    columns: [
      { key: 'dateOfSleep', header: 'Date of sleep' },
      { key: 'startTime', header: 'Start' },
      { key: 'type', header: 'Type' },
      ...SLEEP_STAGES.map((stage) => ({ key: stage, header: `${stage} (min)` })),
    ],
    rows,
    chart,
    chartLabel: 'Hypnogram: sleep stage over time',
  };
}

const TITLES = { weight: 'Weight', fat: 'Body fat', bmi: 'BMI' } as const;

/** Body logs, one answer per 30-day window (decision 0063); BMI is read from the weight logs. */
function weightLogsView(answers: unknown[], option: 'weight' | 'fat' | 'bmi'): FitbitView {
  const resource = option === 'fat' ? 'fat' : 'weight';
  const logs = answers.flatMap((answer) =>
    list(record(answer, resource)[resource], resource).map((log) => record(log, 'log')),
  );
  const rows = logs.map((log) => ({
    date: `${String(log.date)} ${String(log.time ?? '')}`.trim(),
    weight: num(log.weight) === null ? null : kgToLbs(num(log.weight)!),
    fat: num(log.fat),
    bmi: num(log.bmi),
    source: String(log.source ?? ''),
  }));
  return {
    title: TITLES[option],
    columns: [
      { key: 'date', header: 'Date' },
      { key: 'weight', header: 'Weight (lbs)' },
      { key: 'fat', header: 'Body fat (%)' },
      { key: 'bmi', header: 'BMI' },
      { key: 'source', header: 'Source' },
    ],
    rows,
    chart: timeAxisChart({
      unit: { weight: 'lbs', fat: '%', bmi: 'kg/m²' }[option],
      series: [
        {
          name: TITLES[option],
          symbolOnly: true,
          color: '#2e7d32',
          points: pointsOf(rows, option, (r) => r.date.replace(' ', 'T')),
        },
      ],
    }),
    chartLabel: `${TITLES[option]} over time`,
  };
}

function spo2View(answer: unknown): FitbitView {
  const entries = (Array.isArray(answer) ? answer : [answer]).map((e) => record(e, 'spo2'));
  const rows = entries
    .filter((e) => e.value !== undefined)
    .map((e) => {
      const value = record(e.value, 'spo2 value');
      return {
        date: String(e.dateTime),
        avg: num(value.avg),
        min: num(value.min),
        max: num(value.max),
      };
    });
  return {
    title: 'SpO2',
    columns: [
      { key: 'date', header: 'Date' },
      { key: 'avg', header: 'Average (%)' },
      { key: 'min', header: 'Min (%)' },
      { key: 'max', header: 'Max (%)' },
    ],
    rows,
    chart: timeAxisChart({
      unit: '%',
      series: [
        { name: 'Average', color: '#1565c0', points: pointsOf(rows, 'avg') },
        { name: 'Min', color: '#90caf9', points: pointsOf(rows, 'min') },
        { name: 'Max', color: '#0d47a1', points: pointsOf(rows, 'max') },
      ],
    }),
    chartLabel: 'SpO2 per night',
  };
}

function vo2MaxView(answer: unknown): FitbitView {
  const entries = list(record(answer, 'cardioscore').cardioScore, 'cardioScore').map((e) =>
    record(e, 'score'),
  );
  const rows = entries.map((e) => {
    const text = String(record(e.value, 'vo2').vo2Max ?? '');
    const [low, high] = text.split('-').map(Number);
    return { date: String(e.dateTime), vo2Max: text, low: low ?? null, high: high ?? low ?? null };
  });
  return {
    title: 'VO2 max',
    columns: [
      { key: 'date', header: 'Date' },
      { key: 'vo2Max', header: 'VO2 max (mL/kg/min)' },
    ],
    rows: rows.map(({ date, vo2Max }) => ({ date, vo2Max })),
    chart: timeAxisChart({
      unit: 'mL/kg/min',
      series: [
        { name: 'VO2 max (low)', color: '#00897b', points: pointsOf(rows, 'low') },
        { name: 'VO2 max (high)', color: '#004d40', points: pointsOf(rows, 'high') },
      ],
    }),
    chartLabel: 'VO2 max per day',
  };
}

function activityLogsView(answer: unknown): FitbitView {
  const logs = list(record(answer, 'activities list').activities, 'activities').map((a) =>
    record(a, 'activity'),
  );
  const rows = logs.map((a) => ({
    startTime: stamp(a.startTime, 19),
    activityName: String(a.activityName ?? ''),
    minutes: Math.round((num(a.activeDuration ?? a.duration) ?? 0) / 60_000),
    steps: num(a.steps),
    calories: num(a.calories),
    averageHeartRate: num(a.averageHeartRate),
    distance: num(a.distance) === null ? null : kmToMiles(num(a.distance)!),
    logType: String(a.logType ?? ''),
  }));
  const chart = categoryBarChart(
    rows.map((r) => `${r.startTime.slice(0, 16)} ${r.activityName}`),
    'min',
    [{ name: 'Active minutes', data: rows.map((r) => r.minutes) }],
    { bottom: 64 },
  );
  return {
    title: 'Activity logs',
    columns: [
      { key: 'startTime', header: 'Start' },
      { key: 'activityName', header: 'Activity' },
      { key: 'minutes', header: 'Active (min)' },
      { key: 'steps', header: 'Steps' },
      { key: 'calories', header: 'Calories (kcal)' },
      { key: 'averageHeartRate', header: 'Avg heart rate (bpm)' },
      { key: 'distance', header: 'Distance (mi)' },
      { key: 'logType', header: 'Log type' },
    ],
    rows,
    chart,
    chartLabel: 'Active minutes per activity',
  };
}

function foodLogView(answer: unknown): FitbitView {
  const foods = list(record(answer, 'foods').foods, 'foods').map((f) => record(f, 'food'));
  const rows = foods.map((f) => {
    const logged = record(f.loggedFood ?? {}, 'loggedFood');
    const values = record(f.nutritionalValues ?? {}, 'nutritionalValues');
    return {
      date: String(f.logDate ?? ''),
      name: String(logged.name ?? ''),
      amount: num(logged.amount),
      calories: num(values.calories ?? logged.calories),
      carbs: num(values.carbs),
      fat: num(values.fat),
      protein: num(values.protein),
    };
  });
  const chart = categoryBarChart(
    rows.map((r) => r.name),
    'kcal',
    [{ name: 'Calories', data: rows.map((r) => r.calories) }],
  );
  return {
    title: 'Food log',
    columns: [
      { key: 'date', header: 'Date' },
      { key: 'name', header: 'Food' },
      { key: 'amount', header: 'Amount' },
      { key: 'calories', header: 'Calories (kcal)' },
      { key: 'carbs', header: 'Carbs (g)' },
      { key: 'fat', header: 'Fat (g)' },
      { key: 'protein', header: 'Protein (g)' },
    ],
    rows,
    chart,
    chartLabel: 'Calories per food',
  };
}

/** The view of one query's answers (in the order of its resource paths). */
export function toFitbitView(query: FitbitQueryForm, answers: unknown[]): FitbitView {
  const option = chosenOption(query);
  const first = answers[0];
  switch (`${query.category}/${option}`) {
    case 'activities/activityLogs':
      return activityLogsView(first);
    case 'activities/activeMinutes':
      return seriesView(answers, 'Active minutes');
    case 'heart/restingHeartRate':
      return restingHeartRateView(first);
    case 'heart/heartRateZones':
      return heartZonesView(first);
    case 'heart/intraday':
      return heartIntradayView(first);
    case 'sleep/duration':
    case 'sleep/sleepLogs':
      return sleepDurationView(first);
    case 'sleep/stages':
      return sleepStagesView(first);
    case 'foods/foodLog':
      return foodLogView(first);
    case 'healthMetrics/spo2':
      return spo2View(first);
    case 'healthMetrics/vo2max':
      return vo2MaxView(first);
    default: {
      if (
        query.category === 'body' &&
        (option === 'weight' || option === 'fat' || option === 'bmi')
      ) {
        return weightLogsView(answers, option);
      }
      const meta = SERIES_META[option];
      return seriesView(answers, meta?.label ?? option);
    }
  }
}

/** True when a view has nothing to show (the page says "Could not find any data!"). */
export const isEmptyView = (view: FitbitView) => view.rows.length === 0;
