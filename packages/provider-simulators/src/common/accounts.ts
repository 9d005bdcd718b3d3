/**
 * The simulated people. The Fitbit legacy and Google Health simulators show the same people
 * (the same Fitbit device behind both APIs), so a migrated participant has the same data in
 * both. Everything generated for a person is seeded by `id`.
 */

export type ExerciseKind = 'RUN' | 'WALK' | 'BIKE' | 'WEIGHTS' | 'YOGA';

export interface SimulatedDevice {
  /** Stable numeric id (Fitbit `id`; last segment of the Google `pairedDevices` name). */
  id: string;
  model: string;
  type: 'TRACKER' | 'SCALE';
  formFactor: 'FITNESS_BAND' | 'WATCH' | 'SCALE';
  mac: string;
  features: string[];
  /** Battery percentage now. */
  batteryLevel: number;
}

export interface SimulatedAccount {
  /** Stable seed and the id used by the control API, e.g. `ava-thompson`. */
  id: string;
  displayName: string;
  email: string;
  /** Legacy Fitbit user id (6 characters). */
  fitbitUserId: string;
  /** Google Health `healthUserId` (numeric string). */
  healthUserId: string;
  /** False: the Google account has no Google Health profile (ACCOUNT_NOT_LINKED). */
  googleHealthLinked: boolean;
  sex: 'FEMALE' | 'MALE';
  birthDate: string;
  heightCm: number;
  timeZone: string;
  /** First day with data. */
  memberSince: string;
  /** Morning weight the drift model starts from. */
  baselineWeightKg: number;
  weightTrendKgPerYear: number;
  /** Body fat measured by the scale, or null when it does not measure it. */
  baselineBodyFatPercent: number | null;
  restingHeartRate: number;
  habits: {
    dailyStepsMean: number;
    /** Usual lights-out, minutes after local midnight (may exceed 1440 for after midnight). */
    bedtimeMinutes: number;
    sleepHours: number;
    exerciseDaysPerWeek: number;
    exerciseKinds: ExerciseKind[];
    logsFood: boolean;
    logsWater: boolean;
    /** Logs weight by hand once a week (when there is no scale). */
    logsWeightManually: boolean;
  };
  wear: {
    /** Share of days the tracker is not worn at all. */
    notWornDayRate: number;
    /** Share of nights the tracker is taken off (no sleep record). */
    nightOffRate: number;
    /** Hours the last sync lies behind "now" (0 = syncs every 15 minutes). */
    syncLagHours: number;
  };
  tracker: SimulatedDevice;
  scale: SimulatedDevice | null;
  /** What this account is for, shown on the consent page and in READMEs. */
  note: string;
}

/** Public view of an account for the control API and the consent page. */
export interface AccountSummary {
  id: string;
  displayName: string;
  email: string;
  fitbitUserId: string;
  healthUserId: string;
  googleHealthLinked: boolean;
  timeZone: string;
  note: string;
}

export const SIMULATED_ACCOUNTS: readonly SimulatedAccount[] = [
  {
    id: 'ava-thompson',
    displayName: 'Ava Thompson',
    email: 'ava.thompson@example.com',
    fitbitUserId: '7QXK2M',
    healthUserId: '1173016576421350648',
    googleHealthLinked: true,
    sex: 'FEMALE',
    birthDate: '1991-04-12',
    heightCm: 168,
    timeZone: 'America/New_York',
    memberSince: '2023-03-14',
    baselineWeightKg: 63.5,
    weightTrendKgPerYear: -0.4,
    baselineBodyFatPercent: 24.5,
    restingHeartRate: 57,
    habits: {
      dailyStepsMean: 10_500,
      bedtimeMinutes: 23 * 60,
      sleepHours: 7.6,
      exerciseDaysPerWeek: 4,
      exerciseKinds: ['RUN', 'RUN', 'WALK', 'YOGA'],
      logsFood: true,
      logsWater: true,
      logsWeightManually: false,
    },
    wear: { notWornDayRate: 0.02, nightOffRate: 0.03, syncLagHours: 0 },
    tracker: device('ava-thompson', 'Charge 6', 'TRACKER', 'FITNESS_BAND', 78),
    scale: device('ava-thompson', 'Aria Air', 'SCALE', 'SCALE', 64),
    note: 'Active, wears the tracker almost always, weighs herself most mornings.',
  },
  {
    id: 'ben-okafor',
    displayName: 'Ben Okafor',
    email: 'ben.okafor@example.com',
    fitbitUserId: '4HP9TD',
    healthUserId: '2093718450026611937',
    googleHealthLinked: true,
    sex: 'MALE',
    birthDate: '1967-09-30',
    heightCm: 180,
    timeZone: 'Europe/London',
    memberSince: '2022-11-02',
    baselineWeightKg: 94.2,
    weightTrendKgPerYear: 0.8,
    baselineBodyFatPercent: 29.0,
    restingHeartRate: 68,
    habits: {
      dailyStepsMean: 6_200,
      bedtimeMinutes: 23 * 60 + 45,
      sleepHours: 6.6,
      exerciseDaysPerWeek: 1.5,
      exerciseKinds: ['WALK', 'BIKE'],
      logsFood: false,
      logsWater: false,
      logsWeightManually: false,
    },
    wear: { notWornDayRate: 0.05, nightOffRate: 0.05, syncLagHours: 0 },
    tracker: device('ben-okafor', 'Inspire 3', 'TRACKER', 'FITNESS_BAND', 55),
    scale: device('ben-okafor', 'Aria Air', 'SCALE', 'SCALE', 40),
    note: 'Older, less active, daily weigh-ins with a weekend weight bump.',
  },
  {
    id: 'carmen-diaz',
    displayName: 'Carmen Díaz',
    email: 'carmen.diaz@example.com',
    fitbitUserId: '9BZR5W',
    healthUserId: '3391052287716044218',
    googleHealthLinked: true,
    sex: 'FEMALE',
    birthDate: '1979-02-03',
    heightCm: 161,
    timeZone: 'America/Los_Angeles',
    memberSince: '2023-06-20',
    baselineWeightKg: 71.0,
    weightTrendKgPerYear: -1.2,
    baselineBodyFatPercent: null,
    restingHeartRate: 64,
    habits: {
      dailyStepsMean: 8_000,
      bedtimeMinutes: 22 * 60 + 50,
      sleepHours: 7.2,
      exerciseDaysPerWeek: 2,
      exerciseKinds: ['WALK', 'YOGA', 'BIKE'],
      logsFood: false,
      logsWater: true,
      logsWeightManually: true,
    },
    // Gaps: often leaves the tracker on the charger, and its battery is empty now.
    wear: { notWornDayRate: 0.15, nightOffRate: 0.2, syncLagHours: 38 },
    tracker: device('carmen-diaz', 'Sense 2', 'TRACKER', 'WATCH', 0),
    scale: null,
    note: 'Gaps: tracker often not worn; battery empty, last sync about 38 hours ago.',
  },
  {
    id: 'daniel-kim',
    displayName: 'Daniel Kim',
    email: 'daniel.kim@example.com',
    fitbitUserId: '2MWF8J',
    healthUserId: '4412960018735512096',
    googleHealthLinked: true,
    sex: 'MALE',
    birthDate: '1998-06-21',
    heightCm: 176,
    timeZone: 'Asia/Tokyo',
    memberSince: '2023-01-05',
    baselineWeightKg: 70.3,
    weightTrendKgPerYear: 0.3,
    baselineBodyFatPercent: null,
    restingHeartRate: 51,
    habits: {
      dailyStepsMean: 12_500,
      bedtimeMinutes: 24 * 60 + 30,
      sleepHours: 7.0,
      exerciseDaysPerWeek: 5,
      exerciseKinds: ['RUN', 'BIKE', 'WEIGHTS', 'RUN'],
      logsFood: true,
      logsWater: false,
      logsWeightManually: true,
    },
    // Not synced for days: the phone app has not been opened, battery low.
    wear: { notWornDayRate: 0.01, nightOffRate: 0.02, syncLagHours: 80 },
    tracker: device('daniel-kim', 'Pixel Watch 3', 'TRACKER', 'WATCH', 18),
    scale: null,
    note: 'Athlete; not synced for about 3 days (battery low).',
  },
  {
    id: 'eve-schneider',
    displayName: 'Eve Schneider',
    email: 'eve.schneider@example.com',
    fitbitUserId: '6TNC3Q',
    healthUserId: '5528417730092241165',
    googleHealthLinked: false,
    sex: 'FEMALE',
    birthDate: '1985-12-09',
    heightCm: 172,
    timeZone: 'Europe/Berlin',
    memberSince: '2023-09-01',
    baselineWeightKg: 66.0,
    weightTrendKgPerYear: 0,
    baselineBodyFatPercent: null,
    restingHeartRate: 61,
    habits: {
      dailyStepsMean: 9_000,
      bedtimeMinutes: 23 * 60 + 20,
      sleepHours: 7.4,
      exerciseDaysPerWeek: 3,
      exerciseKinds: ['BIKE', 'WALK', 'YOGA'],
      logsFood: false,
      logsWater: false,
      logsWeightManually: false,
    },
    wear: { notWornDayRate: 0.03, nightOffRate: 0.05, syncLagHours: 0 },
    tracker: device('eve-schneider', 'Versa 4', 'TRACKER', 'WATCH', 91),
    scale: null,
    note: 'Fitbit account never migrated: Google Health answers ACCOUNT_NOT_LINKED.',
  },
];

export function findAccount(id: string): SimulatedAccount | undefined {
  return SIMULATED_ACCOUNTS.find((account) => account.id === id);
}

export function summarizeAccount(account: SimulatedAccount): AccountSummary {
  return {
    id: account.id,
    displayName: account.displayName,
    email: account.email,
    fitbitUserId: account.fitbitUserId,
    healthUserId: account.healthUserId,
    googleHealthLinked: account.googleHealthLinked,
    timeZone: account.timeZone,
    note: account.note,
  };
}

/** Age in whole years on the given date. */
export function ageOn(account: SimulatedAccount, date: string): number {
  const [by, bm, bd] = account.birthDate.split('-').map(Number) as [number, number, number];
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return y - by - (m < bm || (m === bm && d < bd) ? 1 : 0);
}

function device(
  seed: string,
  model: string,
  type: SimulatedDevice['type'],
  formFactor: SimulatedDevice['formFactor'],
  batteryLevel: number,
): SimulatedDevice {
  // Ids and MACs are fixed text rather than derived, so they never change with the PRNG.
  const base = [...`${seed}|${model}`].reduce(
    (sum, char) => (sum * 31 + char.charCodeAt(0)) % 1e9,
    7,
  );
  const mac = base.toString(16).toUpperCase().padStart(8, '0').slice(0, 8) + 'A1C3';
  const features =
    type === 'SCALE'
      ? ['WEIGHT', 'BODY_FAT']
      : [
          'STEPS',
          'HEART_RATE',
          'SPO2',
          'SMART_SLEEP',
          'ACTIVE_ZONE_MINUTES',
          ...(formFactor === 'WATCH' ? ['GPS'] : []),
        ];
  return {
    id: String(800_000_000 + (base % 199_999_999)),
    model,
    type,
    formFactor,
    mac,
    features,
    batteryLevel,
  };
}
