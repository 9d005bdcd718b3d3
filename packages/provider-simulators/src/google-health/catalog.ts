/**
 * The Google Health data type catalogue (facts §7) and scopes (§2.6): path id, filter name,
 * JSON key, record kind, operations, scope, filter members and rollup range limits.
 */

export const SCOPE_PREFIX = 'https://www.googleapis.com/auth/googlehealth';

export type ScopeFamily =
  | 'activity_and_fitness'
  | 'health_metrics_and_measurements'
  | 'sleep'
  | 'nutrition'
  | 'location'
  | 'ecg'
  | 'irn'
  | 'profile'
  | 'settings';

/** Scopes accepted on the authorize URL, with the label shown on the consent page. */
export const SCOPE_LABELS: Record<string, string> = {
  ...scopePair(
    'activity_and_fitness',
    'activity and fitness (steps, distance, floors, exercise, VO2 max)',
  ),
  ...scopePair(
    'health_metrics_and_measurements',
    'health metrics (heart rate, SpO2, weight, body fat)',
  ),
  ...scopePair('sleep', 'sleep'),
  ...scopePair('nutrition', 'nutrition and hydration logs'),
  ...scopePair('profile', 'profile'),
  ...scopePair('settings', 'settings and paired devices'),
  [`${SCOPE_PREFIX}.location.readonly`]: 'See exercise GPS routes',
  [`${SCOPE_PREFIX}.ecg.readonly`]: 'See ECG readings',
  [`${SCOPE_PREFIX}.irn.readonly`]: 'See irregular rhythm notifications',
  openid: 'Associate you with your personal info on Google',
  email: 'See your primary Google Account email address',
  profile: 'See your personal info',
  'https://www.googleapis.com/auth/userinfo.email': 'See your primary Google Account email address',
  'https://www.googleapis.com/auth/userinfo.profile': 'See your personal info',
};

/** Whether granted scopes allow reading a family (`.readonly`, or the old unsuffixed scope). */
export function canRead(scopes: readonly string[], family: ScopeFamily): boolean {
  return (
    scopes.includes(`${SCOPE_PREFIX}.${family}.readonly`) ||
    scopes.includes(`${SCOPE_PREFIX}.${family}`)
  );
}

/** Any Google Health scope (identity accepts any data scope). */
export function hasAnyHealthScope(scopes: readonly string[]): boolean {
  return scopes.some((scope) => scope.startsWith(`${SCOPE_PREFIX}.`));
}

export type RecordKind = 'interval' | 'sample' | 'daily' | 'session' | 'sleep';
export type Operation = 'list' | 'get' | 'reconcile' | 'rollUp' | 'dailyRollUp';

export interface DataTypeSpec {
  /** Path id (kebab-case). */
  id: string;
  /** Filter prefix (snake_case). */
  filterName: string;
  /** Union key in DataPoint JSON (lowerCamel). */
  jsonKey: string;
  record: RecordKind;
  operations: readonly Operation[];
  scope: ScopeFamily;
  /** Members allowed in filters, without the type prefix. */
  filterMembers: readonly string[];
  /** Maximum rollUp / dailyRollUp range in days. */
  rollupRangeDays: 14 | 90;
  /** Sessions: sleep and exercise pages hold at most 25. */
  maxPageSize: number;
  defaultPageSize: number;
  /** Types the simulator generates data for; the others answer with no data. */
  generated: boolean;
}

const ALL: Operation[] = ['list', 'reconcile', 'rollUp', 'dailyRollUp'];
const LIST: Operation[] = ['list', 'reconcile'];
const INTERVAL_MEMBERS = ['interval.start_time', 'interval.civil_start_time'];
const SAMPLE_MEMBERS = ['sample_time.physical_time', 'sample_time.civil_time'];
const DAILY_MEMBERS = ['date'];
const SESSION_MEMBERS = ['interval.civil_start_time'];

export const DATA_TYPES: readonly DataTypeSpec[] = [
  type('active-energy-burned', 'interval', ALL, 'activity_and_fitness', false),
  type('active-minutes', 'interval', ALL, 'activity_and_fitness', false, 14),
  type('active-zone-minutes', 'interval', ALL, 'activity_and_fitness', true),
  type('activity-level', 'interval', ALL, 'activity_and_fitness', true),
  type('altitude', 'interval', ALL, 'activity_and_fitness', true),
  type('basal-energy-burned', 'interval', LIST, 'activity_and_fitness', false),
  type(
    'blood-glucose',
    'sample',
    ['list', 'get', 'reconcile', 'rollUp', 'dailyRollUp'],
    'health_metrics_and_measurements',
    false,
  ),
  type(
    'body-fat',
    'sample',
    ['list', 'get', 'reconcile', 'rollUp', 'dailyRollUp'],
    'health_metrics_and_measurements',
    true,
  ),
  type(
    'calories-in-heart-rate-zone',
    'interval',
    ['rollUp', 'dailyRollUp'],
    'activity_and_fitness',
    false,
    14,
  ),
  type(
    'core-body-temperature',
    'sample',
    ['list', 'get', 'reconcile', 'rollUp', 'dailyRollUp'],
    'health_metrics_and_measurements',
    false,
  ),
  type('daily-heart-rate-variability', 'daily', LIST, 'health_metrics_and_measurements', false),
  type('daily-heart-rate-zones', 'daily', LIST, 'health_metrics_and_measurements', true),
  type('daily-oxygen-saturation', 'daily', LIST, 'health_metrics_and_measurements', true),
  type('daily-respiratory-rate', 'daily', LIST, 'health_metrics_and_measurements', false),
  type('daily-resting-heart-rate', 'daily', LIST, 'health_metrics_and_measurements', true),
  type(
    'daily-sleep-temperature-derivations',
    'daily',
    LIST,
    'health_metrics_and_measurements',
    false,
  ),
  type('daily-vo2-max', 'daily', LIST, 'activity_and_fitness', true),
  type('distance', 'interval', ALL, 'activity_and_fitness', true),
  type('electrocardiogram', 'session', ['list'], 'ecg', false),
  type('exercise', 'session', ['list', 'get', 'reconcile'], 'activity_and_fitness', true),
  // The docs table lists no `list` for floors (facts §14 keeps it open); reconcile works.
  type('floors', 'interval', ['reconcile', 'rollUp', 'dailyRollUp'], 'activity_and_fitness', true),
  type('food', 'session', ['list', 'get'], 'nutrition', false),
  type('food-measurement-unit', 'session', ['list', 'get'], 'nutrition', false),
  type('heart-rate', 'sample', ALL, 'health_metrics_and_measurements', true, 14),
  type('heart-rate-variability', 'sample', LIST, 'health_metrics_and_measurements', false),
  type('height', 'sample', ['list', 'get', 'reconcile'], 'health_metrics_and_measurements', false),
  type(
    'hydration-log',
    'session',
    ['list', 'get', 'reconcile', 'rollUp', 'dailyRollUp'],
    'nutrition',
    true,
  ),
  type('irregular-rhythm-notification', 'session', ['list'], 'irn', false),
  type(
    'nutrition-log',
    'session',
    ['list', 'get', 'reconcile', 'rollUp', 'dailyRollUp'],
    'nutrition',
    true,
  ),
  type('oxygen-saturation', 'sample', LIST, 'health_metrics_and_measurements', true),
  type('respiratory-rate-sleep-summary', 'sample', LIST, 'health_metrics_and_measurements', false),
  type('run-vo2-max', 'sample', ALL, 'activity_and_fitness', false),
  type('sedentary-period', 'interval', ALL, 'activity_and_fitness', false),
  type('sleep', 'sleep', ['list', 'get', 'reconcile'], 'sleep', true),
  type('steps', 'interval', ALL, 'activity_and_fitness', true),
  type('swim-lengths-data', 'interval', ALL, 'activity_and_fitness', false),
  type('time-in-heart-rate-zone', 'interval', ALL, 'activity_and_fitness', false),
  type('total-calories', 'interval', ['rollUp', 'dailyRollUp'], 'activity_and_fitness', true, 14),
  type('vo2-max', 'sample', LIST, 'activity_and_fitness', false),
  type(
    'weight',
    'sample',
    ['list', 'get', 'reconcile', 'rollUp', 'dailyRollUp'],
    'health_metrics_and_measurements',
    true,
  ),
];

export function findDataType(id: string): DataTypeSpec | undefined {
  return DATA_TYPES.find((spec) => spec.id === id);
}

export function findDataTypeByFilterName(name: string): DataTypeSpec | undefined {
  return DATA_TYPES.find((spec) => spec.filterName === name);
}

function type(
  id: string,
  record: RecordKind,
  operations: Operation[],
  scope: ScopeFamily,
  generated: boolean,
  rollupRangeDays: 14 | 90 = 90,
): DataTypeSpec {
  const session = record === 'sleep' || id === 'exercise';
  return {
    id,
    filterName: id.replaceAll('-', '_'),
    jsonKey: id.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
    record,
    operations,
    scope,
    filterMembers:
      record === 'interval'
        ? INTERVAL_MEMBERS
        : record === 'sample'
          ? SAMPLE_MEMBERS
          : record === 'daily'
            ? DAILY_MEMBERS
            : record === 'sleep'
              ? ['interval.end_time', 'interval.civil_end_time']
              : id === 'electrocardiogram'
                ? ['interval.start_time']
                : SESSION_MEMBERS,
    rollupRangeDays,
    maxPageSize: session ? 25 : 10_000,
    defaultPageSize: session ? 25 : 1440,
    generated,
  };
}

function scopePair(family: string, what: string): Record<string, string> {
  return {
    [`${SCOPE_PREFIX}.${family}.readonly`]: `See your ${what}`,
    [`${SCOPE_PREFIX}.${family}.writeonly`]: `Add and edit your ${what}`,
    // Older unsuffixed read/write scopes (facts §2.6); still accepted here.
    [`${SCOPE_PREFIX}.${family}`]: `See and edit your ${what}`,
  };
}
