import { kgToLbs } from '@trialpulse/shared/device-data/device-data.schemas';
import { METRIC_UNITS } from './brands';

const number = (value: number) => value.toLocaleString('en-US', { maximumFractionDigits: 2 });

/**
 * A stored Fitbit metric's latest value as the overview tile shows it, in the units of the
 * Fitbit data page (device-data §9): distance in miles (km ÷ 1.609, two decimals), weight
 * in pounds (kg × 2.20462, one decimal), sleep in hours (one decimal), thousands separated.
 */
export function fitbitTileText(metricKey: string, value: number): string {
  switch (metricKey) {
    case 'distance':
      return `${number(Math.round((value / 1.609) * 100) / 100)} mi`;
    case 'weight':
      return `${number(kgToLbs(value))} lbs`;
    case 'sleep_duration':
      return `${number(Math.round((value / 60) * 10) / 10)} h`;
    default:
      return `${number(Math.round(value * 10) / 10)} ${METRIC_UNITS[metricKey] ?? ''}`.trim();
  }
}
