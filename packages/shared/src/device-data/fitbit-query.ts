import { addDays, periodStart, type FitbitPeriod } from './fitbit-resource-path';

/**
 * The Fitbit query of the data page (device-data spec §3 "Fitbit query", §4 category
 * selection, §5 validation, §9 periods and max logs): the form's values, the defaults a
 * category applies, the checks that stop a request, and the resource paths a valid query
 * asks GET /api/getFitbitServerParticipantData for (§7). Decision 0065 records the choices
 * the spec leaves open.
 */

/** §5 messages, copied exactly; a query that fails one of them is not sent. */
export const FITBIT_QUERY_MESSAGES = {
  period: 'Please select a period',
  startDate: 'Please select a start date',
  endDate: 'Please select an end date',
  resource: 'Please select a resource',
  category: 'Please select a category',
  beforeOrAfterDate: 'Please select before or after date',
  maxActivityLogs: 'Please select max activity logs',
  startAndEndTime: 'Please add start and end time',
  heartOption: 'Please select a Heart Option',
  foodsOption: 'Please select a Foods Option',
  healthMetricsOption: 'Please select a Health Metrics Option',
  sleepOption: 'Please select a sleep option',
  maxSleepLogs: 'Please select max number of sleep logs',
  includeTimeAndStartTime: 'Please select include time and start time',
} as const;

/** Date-picker rules of §5 (the spec gives no text; decision 0065). */
export const FITBIT_DATE_MESSAGES = {
  future: 'The date cannot be after today.',
  startAfterEnd: 'The start date cannot be after the end date.',
  rangeTooLong: (days: number) => `This option covers at most ${days} days.`,
} as const;

/** Error texts of the data page beyond the call's own (device-data §8). */
export const FITBIT_PAGE_MESSAGES = {
  activeMinutesFailed: 'Fitbit active minutes request failed!',
  prepareFailed: 'Error: Could not prepare Fitbit data for display',
} as const;

export const FITBIT_CATEGORIES = [
  'activities',
  'body',
  'heart',
  'sleep',
  'foods',
  'healthMetrics',
] as const;
export type FitbitCategory = (typeof FITBIT_CATEGORIES)[number];

export const FITBIT_CATEGORY_LABELS: Record<FitbitCategory, string> = {
  activities: 'Activities',
  body: 'Body',
  heart: 'Heart',
  sleep: 'Sleep',
  foods: 'Foods',
  healthMetrics: 'Health Metrics',
};

/** §9 periods, in the order the form lists them. */
export const FITBIT_QUERY_PERIODS = [
  '1d',
  '7d',
  '30d',
  '1m',
  '3m',
  '6m',
  '1y',
  'customDates',
] as const;
export type FitbitQueryPeriod = (typeof FITBIT_QUERY_PERIODS)[number];

export const FITBIT_PERIOD_LABELS: Record<FitbitQueryPeriod, string> = {
  '1d': '1 day',
  '7d': '7 days',
  '30d': '30 days',
  '1m': '1 month',
  '3m': '3 months',
  '6m': '6 months',
  '1y': '1 year',
  customDates: 'Custom dates',
};

/** §9 max-logs choices: 1 to 10, 14, 20. */
export const FITBIT_MAX_LOGS_CHOICES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14, 20] as const;
export const FITBIT_DEFAULT_MAX_ACTIVITY_LOGS = 1;
export const FITBIT_DEFAULT_MAX_SLEEP_LOGS = 10;
export const FITBIT_DEFAULT_PERIOD = '7d' satisfies FitbitQueryPeriod;

export const FITBIT_HEART_DETAIL_LEVELS = ['1sec', '1min', '5min', '15min'] as const;
export const FITBIT_DEFAULT_HEART_DETAIL_LEVEL = '1min';

/** "before" → `beforeDate` (newest first), "after" → `afterDate` (oldest first). */
export const FITBIT_LOG_LIST_SUBJECTS = ['before', 'after'] as const;

/** One option of a category: its label, the periods it allows, what kind of answer it asks. */
type OptionSpec = {
  label: string;
  /** Periods offered; `customDates` included when listed. */
  periods: readonly FitbitQueryPeriod[];
  /** Longest custom range in days (the upstream's limit). */
  maxDays: number;
  /** `series`: a date range; `day`: one day (intraday, food log); `list`: a log list. */
  shape: 'series' | 'day' | 'list';
};

const ALL: readonly FitbitQueryPeriod[] = FITBIT_QUERY_PERIODS;
const UP_TO_1M: readonly FitbitQueryPeriod[] = ['1d', '7d', '30d', '1m', 'customDates'];
const UP_TO_3M: readonly FitbitQueryPeriod[] = ['1d', '7d', '30d', '1m', '3m', 'customDates'];
const UP_TO_30D: readonly FitbitQueryPeriod[] = ['1d', '7d', '30d', 'customDates'];
const VO2_MAX: readonly FitbitQueryPeriod[] = ['1d', '7d', '30d'];
const ONE_DAY: readonly FitbitQueryPeriod[] = ['1d', 'customDates'];
const NONE: readonly FitbitQueryPeriod[] = [];

const series = (label: string, periods = ALL, maxDays = 1095): OptionSpec => ({
  label,
  periods,
  maxDays,
  shape: 'series',
});

/** The options of each category, keyed by the value the form sends. */
export const FITBIT_CATEGORY_OPTIONS = {
  activities: {
    steps: series('Steps'),
    distance: series('Distance'),
    floors: series('Floors'),
    calories: series('Calories'),
    minutesSedentary: series('Minutes sedentary'),
    activeMinutes: series('Active minutes (lightly, fairly, very)'),
    activityLogs: { label: 'Activity logs', periods: NONE, maxDays: 1, shape: 'list' },
  },
  body: {
    weight: series('Weight'),
    fat: series('Body fat'),
    bmi: series('BMI'),
  },
  heart: {
    restingHeartRate: series('Resting heart rate', UP_TO_1M, 366),
    heartRateZones: series('Heart rate zones', UP_TO_1M, 366),
    intraday: {
      label: 'Heart rate (one day, detailed)',
      periods: ONE_DAY,
      maxDays: 1,
      shape: 'day',
    },
  },
  sleep: {
    duration: series('Sleep duration', UP_TO_3M, 100),
    stages: series('Sleep stages', UP_TO_3M, 100),
    sleepLogs: { label: 'Sleep logs', periods: NONE, maxDays: 1, shape: 'list' },
  },
  foods: {
    caloriesIn: series('Calories in'),
    water: series('Water'),
    foodLog: { label: 'Food log (one day)', periods: ONE_DAY, maxDays: 1, shape: 'day' },
  },
  healthMetrics: {
    spo2: series('SpO2', UP_TO_30D, 30),
    vo2max: series('VO2 max (cardio fitness)', VO2_MAX, 30),
  },
} as const satisfies Record<FitbitCategory, Record<string, OptionSpec>>;

/** The form field that holds each category's option (§3 query field names). */
export const FITBIT_OPTION_FIELD = {
  activities: 'activityResourcePath',
  body: 'bodyResourcePath',
  heart: 'heartOptions',
  sleep: 'sleepOptions',
  foods: 'foodsOptions',
  healthMetrics: 'healthMetricsOptions',
} as const satisfies Record<FitbitCategory, string>;
export type FitbitOptionField = (typeof FITBIT_OPTION_FIELD)[FitbitCategory];

/** §4 defaults: the option a category selects, with period 7d. */
export const FITBIT_CATEGORY_DEFAULTS = {
  activities: 'distance',
  body: 'weight',
  heart: 'restingHeartRate',
  sleep: 'duration',
  foods: 'caloriesIn',
  healthMetrics: 'spo2',
} as const satisfies { [C in FitbitCategory]: keyof (typeof FITBIT_CATEGORY_OPTIONS)[C] };

/** The §3 query as the form holds it: strings, empty = not chosen. */
export type FitbitQueryForm = {
  category: string;
  activityResourcePath: string;
  bodyResourcePath: string;
  heartOptions: string;
  sleepOptions: string;
  foodsOptions: string;
  healthMetricsOptions: string;
  period: string;
  startDate: string;
  endDate: string;
  includeTime: boolean;
  startTime: string;
  endTime: string;
  heartDetailLevel: string;
  maxActivityLogs: string;
  maxSleepLogs: string;
  /** Log lists: `before` or `after` the start date. */
  subject: string;
};

export type FitbitQueryField = keyof FitbitQueryForm;

/** Nothing chosen yet: the page shows the overview tiles. */
export const EMPTY_FITBIT_QUERY: FitbitQueryForm = {
  category: '',
  activityResourcePath: '',
  bodyResourcePath: '',
  heartOptions: '',
  sleepOptions: '',
  foodsOptions: '',
  healthMetricsOptions: '',
  period: '',
  startDate: '',
  endDate: '',
  includeTime: false,
  startTime: '',
  endTime: '',
  heartDetailLevel: FITBIT_DEFAULT_HEART_DETAIL_LEVEL,
  maxActivityLogs: String(FITBIT_DEFAULT_MAX_ACTIVITY_LOGS),
  maxSleepLogs: String(FITBIT_DEFAULT_MAX_SLEEP_LOGS),
  subject: '',
};

export const isFitbitCategory = (value: string): value is FitbitCategory =>
  (FITBIT_CATEGORIES as readonly string[]).includes(value);

/**
 * §4: selecting a category resets every other option and applies its default with period
 * 7d (max logs back to their defaults, no time, no dates).
 */
export function selectFitbitCategory(category: FitbitCategory): FitbitQueryForm {
  return {
    ...EMPTY_FITBIT_QUERY,
    category,
    [FITBIT_OPTION_FIELD[category]]: FITBIT_CATEGORY_DEFAULTS[category],
    period: FITBIT_DEFAULT_PERIOD,
  };
}

/** The option a query chose for its category (empty when none). */
export function chosenOption(query: FitbitQueryForm): string {
  return isFitbitCategory(query.category) ? query[FITBIT_OPTION_FIELD[query.category]] : '';
}

/** The spec of the chosen option, if the category and option are known. */
export function optionSpec(query: FitbitQueryForm): OptionSpec | undefined {
  if (!isFitbitCategory(query.category)) return undefined;
  const options = FITBIT_CATEGORY_OPTIONS[query.category] as Record<string, OptionSpec>;
  return options[chosenOption(query)];
}

/**
 * Changes one option of the category: the period falls back to 7d (or the option's first)
 * when the new option does not offer the current one, as a picker would.
 */
export function selectFitbitOption(query: FitbitQueryForm, option: string): FitbitQueryForm {
  if (!isFitbitCategory(query.category)) return query;
  const next = { ...query, [FITBIT_OPTION_FIELD[query.category]]: option };
  const spec = optionSpec(next);
  if (spec && spec.periods.length > 0 && !spec.periods.includes(next.period as FitbitQueryPeriod)) {
    next.period = spec.periods.includes(FITBIT_DEFAULT_PERIOD)
      ? FITBIT_DEFAULT_PERIOD
      : spec.periods[0]!;
  }
  return next;
}

const ERROR_LABEL: Record<FitbitCategory, string> = {
  activities: FITBIT_QUERY_MESSAGES.resource,
  body: FITBIT_QUERY_MESSAGES.resource,
  heart: FITBIT_QUERY_MESSAGES.heartOption,
  sleep: FITBIT_QUERY_MESSAGES.sleepOption,
  foods: FITBIT_QUERY_MESSAGES.foodsOption,
  healthMetrics: FITBIT_QUERY_MESSAGES.healthMetricsOption,
};

export type FitbitQueryErrors = Partial<Record<FitbitQueryField, string>>;

const DAY_MS = 86_400_000;
const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;

/**
 * The §5 checks, per field (empty object: the query may be sent). `today` is the user's
 * local date (yyyy-MM-dd): no date may be after it.
 */
export function validateFitbitQuery(query: FitbitQueryForm, today: string): FitbitQueryErrors {
  const errors: FitbitQueryErrors = {};
  if (!isFitbitCategory(query.category)) {
    errors.category = FITBIT_QUERY_MESSAGES.category;
    return errors;
  }
  const field = FITBIT_OPTION_FIELD[query.category];
  const spec = optionSpec(query);
  if (!spec) {
    errors[field] = ERROR_LABEL[query.category];
    return errors;
  }
  const checkDate = (key: 'startDate' | 'endDate', message: string) => {
    if (!query[key]) errors[key] = message;
    else if (query[key] > today) errors[key] = FITBIT_DATE_MESSAGES.future;
  };

  if (spec.shape === 'list') {
    if (!query.subject) errors.subject = FITBIT_QUERY_MESSAGES.beforeOrAfterDate;
    checkDate('startDate', FITBIT_QUERY_MESSAGES.startDate);
    if (query.includeTime && !query.startTime) {
      errors.startTime = FITBIT_QUERY_MESSAGES.includeTimeAndStartTime;
    }
    if (query.category === 'activities' && !query.maxActivityLogs) {
      errors.maxActivityLogs = FITBIT_QUERY_MESSAGES.maxActivityLogs;
    }
    if (query.category === 'sleep' && !query.maxSleepLogs) {
      errors.maxSleepLogs = FITBIT_QUERY_MESSAGES.maxSleepLogs;
    }
    return errors;
  }

  if (!query.period || !spec.periods.includes(query.period as FitbitQueryPeriod)) {
    errors.period = FITBIT_QUERY_MESSAGES.period;
  } else if (query.period === 'customDates') {
    if (spec.shape === 'day') {
      checkDate('startDate', FITBIT_QUERY_MESSAGES.startDate);
    } else {
      checkDate('startDate', FITBIT_QUERY_MESSAGES.startDate);
      checkDate('endDate', FITBIT_QUERY_MESSAGES.endDate);
      if (!errors.startDate && !errors.endDate) {
        if (query.startDate > query.endDate) errors.startDate = FITBIT_DATE_MESSAGES.startAfterEnd;
        else if (dayNumber(query.endDate) - dayNumber(query.startDate) + 1 > spec.maxDays) {
          errors.startDate = FITBIT_DATE_MESSAGES.rangeTooLong(spec.maxDays);
        }
      }
    }
  }
  if (spec.shape === 'day' && query.includeTime && (!query.startTime || !query.endTime)) {
    errors.endTime = FITBIT_QUERY_MESSAGES.startAndEndTime;
  }
  return errors;
}

/** The civil date range a series query covers (period ending today, or the custom dates). */
export function fitbitQueryRange(
  query: FitbitQueryForm,
  today: string,
): { start: string; end: string } {
  if (query.period === 'customDates') {
    return {
      start: query.startDate,
      end: optionSpec(query)?.shape === 'day' ? query.startDate : query.endDate,
    };
  }
  return { start: periodStart(today, query.period as FitbitPeriod), end: today };
}

/**
 * A "last N days" shortcut (decision 0190) applied to a series query: the §9 period that
 * covers exactly those days when the option offers it (7 → 7d, 30 → 30d), else custom dates
 * from the first of the N days to `today`; null when the option can say neither (log lists
 * and one-day views, VO2 max's 14 days, a range longer than the option allows).
 */
export function fitbitQueryShortcut(
  query: FitbitQueryForm,
  days: number,
  today: string,
): FitbitQueryForm | null {
  const spec = optionSpec(query);
  if (!spec || spec.shape !== 'series') return null;
  const period = `${days}d` as FitbitQueryPeriod;
  if (
    spec.periods.includes(period) &&
    periodStart(today, period as FitbitPeriod) === addDays(today, 1 - days)
  ) {
    return { ...query, period };
  }
  if (!spec.periods.includes('customDates') || days > spec.maxDays) return null;
  return { ...query, period: 'customDates', startDate: addDays(today, 1 - days), endDate: today };
}

/** The longest window of one body-log call (fat logs: 30 days, weight logs 31). */
const BODY_LOG_DAYS = 30;

/**
 * The resource paths (device-data §7, legacy Fitbit Web API form without `/1/user/-/`) of a
 * valid query. Most queries ask one path; active minutes asks the three tracker series.
 * Log lists carry their parameters as a query string.
 */
export function fitbitResourcePaths(query: FitbitQueryForm, today: string): string[] {
  const option = chosenOption(query);
  // Log lists have no period: their range is the start date alone.
  const { start, end } =
    optionSpec(query)?.shape === 'list'
      ? { start: query.startDate, end: query.startDate }
      : fitbitQueryRange(query, today);
  const range = `date/${start}/${end}.json`;
  const time =
    query.includeTime && query.startTime && query.endTime
      ? `/time/${query.startTime}/${query.endTime}`
      : '';
  const listParams = (limit: string) => {
    const at =
      query.includeTime && query.startTime
        ? `${query.startDate}T${query.startTime}:00`
        : query.startDate;
    const before = query.subject === 'before';
    return `?${before ? 'beforeDate' : 'afterDate'}=${at}&sort=${before ? 'desc' : 'asc'}&offset=0&limit=${limit}`;
  };
  switch (query.category) {
    case 'activities':
      if (option === 'activityLogs')
        return [`activities/list.json${listParams(query.maxActivityLogs)}`];
      if (option === 'activeMinutes') {
        return (['Lightly', 'Fairly', 'Very'] as const).map(
          (level) => `activities/tracker/minutes${level}Active/${range}`,
        );
      }
      return [`activities/${option}/${range}`];
    case 'body': {
      // Body logs (weight logs carry BMI and fat), asked in the log call's 30-day windows
      // (provider-apis §1.9; decision 0063).
      const log = option === 'fat' ? 'fat' : 'weight';
      const paths: string[] = [];
      for (let first = start; first <= end; first = addDays(first, BODY_LOG_DAYS)) {
        const last =
          addDays(first, BODY_LOG_DAYS - 1) < end ? addDays(first, BODY_LOG_DAYS - 1) : end;
        paths.push(`body/log/${log}/date/${first}/${last}.json`);
      }
      return paths;
    }
    case 'heart':
      if (option === 'intraday') {
        return [`activities/heart/date/${start}/1d/${query.heartDetailLevel}${time}.json`];
      }
      return [`activities/heart/${range}`];
    case 'sleep':
      if (option === 'sleepLogs') return [`sleep/list.json${listParams(query.maxSleepLogs)}`];
      return [`sleep/${range}`];
    case 'foods':
      if (option === 'foodLog') return [`foods/log/date/${start}.json`];
      return [`foods/log/${option}/${range}`];
    case 'healthMetrics':
      return [option === 'vo2max' ? `cardioscore/${range}` : `spo2/${range}`];
    default:
      return [];
  }
}
