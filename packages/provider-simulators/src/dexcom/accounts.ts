/**
 * Dexcom sandbox-style users. Like the real sandbox, the login page offers SandboxUser1…7
 * without a password; SandboxUser7 is the G7 user, the others cover G6 phone apps, a
 * receiver, a mixed setup and gaps. Data is seeded by the account id.
 */
export type DisplayDevice = 'iOS' | 'android' | 'receiver' | 'touchscreenReceiver';

export type DexcomAccount = {
  id: string;
  description: string;
  timeZone: string;
  /** First local day with data (YYYY-MM-DD); moved earlier if "now" needs 400+ days. */
  dataStart: string;
  generation: 'g6' | 'g7' | 'g715day';
  /** Display devices in use; sensor sessions alternate between them when there are two. */
  displayDevices: DisplayDevice[];
  glucose: {
    /** Fasting baseline (mg/dL). */
    baseline: number;
    /** mg/dL rise per gram of carbohydrate at the peak of a meal response. */
    mealRise: number;
    /** Insulin users get post-meal dips when a bolus over-covers a meal. */
    usesInsulin: boolean;
    /** Share of days with a low episode. */
    lowDays: number;
    /** Dawn-phenomenon rise in the early morning (mg/dL). */
    dawn: number;
  };
  /** How much the user logs in the app: carbs/insulin/exercise/notes. */
  logging: 'many' | 'few';
  /** Chance that a sensor session is followed by days without a sensor. */
  notWornChance: number;
  /** Chance that the user enters a fingerstick calibration during a session. */
  calibrationChance: number;
  highAlert: number;
};

export const DEXCOM_ACCOUNTS: DexcomAccount[] = [
  {
    id: 'SandboxUser1',
    description: 'G6 on iPhone; type 1 diabetes with insulin, logs meals and insulin.',
    timeZone: 'America/Los_Angeles',
    dataStart: '2024-02-05',
    generation: 'g6',
    displayDevices: ['iOS'],
    glucose: { baseline: 118, mealRise: 2.1, usesInsulin: true, lowDays: 0.18, dawn: 18 },
    logging: 'many',
    notWornChance: 0.04,
    calibrationChance: 0.15,
    highAlert: 250,
  },
  {
    id: 'SandboxUser2',
    description: 'G6 on Android; type 2 diabetes without insulin, higher average, few logs.',
    timeZone: 'America/New_York',
    dataStart: '2024-03-11',
    generation: 'g6',
    displayDevices: ['android'],
    glucose: { baseline: 142, mealRise: 1.5, usesInsulin: false, lowDays: 0.01, dawn: 12 },
    logging: 'few',
    notWornChance: 0.05,
    calibrationChance: 0.05,
    highAlert: 250,
  },
  {
    id: 'SandboxUser3',
    description:
      'G6 receiver only (display times without offset); uploads when docked, every few days.',
    timeZone: 'America/Chicago',
    dataStart: '2024-01-22',
    generation: 'g6',
    displayDevices: ['receiver'],
    glucose: { baseline: 126, mealRise: 1.9, usesInsulin: true, lowDays: 0.1, dawn: 15 },
    logging: 'few',
    notWornChance: 0.06,
    calibrationChance: 0.5,
    highAlert: 220,
  },
  {
    id: 'SandboxUser4',
    description:
      'G6 with both the iPhone app and a touchscreen receiver; tight control, many logs.',
    timeZone: 'America/Denver',
    dataStart: '2024-04-08',
    generation: 'g6',
    displayDevices: ['iOS', 'touchscreenReceiver'],
    glucose: { baseline: 108, mealRise: 1.6, usesInsulin: true, lowDays: 0.12, dawn: 10 },
    logging: 'many',
    notWornChance: 0.03,
    calibrationChance: 0.3,
    highAlert: 200,
  },
  {
    id: 'SandboxUser5',
    description: 'G6 on Android with long gaps (sensor not worn for days); frequent lows.',
    timeZone: 'America/Phoenix',
    dataStart: '2024-02-19',
    generation: 'g6',
    displayDevices: ['android'],
    glucose: { baseline: 112, mealRise: 2.3, usesInsulin: true, lowDays: 0.3, dawn: 14 },
    logging: 'many',
    notWornChance: 0.35,
    calibrationChance: 0.1,
    highAlert: 250,
  },
  {
    id: 'SandboxUser6',
    description: 'G7 15-day sensor on iPhone; prediabetes range, few logs.',
    timeZone: 'America/New_York',
    dataStart: '2024-05-06',
    generation: 'g715day',
    displayDevices: ['iOS'],
    glucose: { baseline: 104, mealRise: 1.1, usesInsulin: false, lowDays: 0.02, dawn: 6 },
    logging: 'few',
    notWornChance: 0.08,
    calibrationChance: 0.02,
    highAlert: 200,
  },
  {
    id: 'SandboxUser7',
    description: 'G7 on iPhone; type 1 diabetes with insulin, logs meals and insulin.',
    timeZone: 'America/Los_Angeles',
    dataStart: '2024-01-08',
    generation: 'g7',
    displayDevices: ['iOS'],
    glucose: { baseline: 122, mealRise: 2.0, usesInsulin: true, lowDays: 0.15, dawn: 16 },
    logging: 'many',
    notWornChance: 0.04,
    calibrationChance: 0.05,
    highAlert: 250,
  },
];
