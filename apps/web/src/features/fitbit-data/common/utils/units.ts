import { kgToLbs } from '@trialpulse/shared/device-data/device-data.schemas';

/**
 * Units of the Fitbit views (device-data §9): the server answers metric (km, kg), the pages
 * show miles and pounds.
 */
export const FITBIT_UNITS = {
  distance: 'mi',
  weight: 'lbs',
  heartRate: 'bpm',
  sleep: 'h',
  floors: 'floors',
  steps: 'steps',
} as const;

/** km → miles: divided by 1.609 (§9), kept to two decimals. */
export function kmToMiles(km: number): number {
  return Math.round((km / 1.609) * 100) / 100;
}

/** kg → pounds: × 2.20462, one decimal (§9). */
export { kgToLbs };

/** Minutes → hours with one decimal (sleep duration tiles and tables). */
export function minutesToHours(minutes: number): number {
  return Math.round((minutes / 60) * 10) / 10;
}

/** Today in the browser's time zone, `yyyy-MM-dd` (Fitbit dates are the user's local dates). */
export function localToday(now: Date = new Date()): string {
  const local = new Date(now.getTime() - now.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 10);
}
