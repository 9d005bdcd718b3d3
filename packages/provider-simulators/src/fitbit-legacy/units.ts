/**
 * Fitbit picks the unit system from Accept-Language (facts §1.4): en_US gives US units,
 * en_GB gives UK units (stone for weight), anything else metric.
 */

export type UnitSystem = 'US' | 'UK' | 'METRIC';

export function unitSystemOf(acceptLanguage: string | string[] | undefined): UnitSystem {
  const value =
    (Array.isArray(acceptLanguage) ? acceptLanguage[0] : acceptLanguage)?.trim().toLowerCase() ??
    '';
  if (value.startsWith('en_us') || value.startsWith('en-us')) return 'US';
  if (value.startsWith('en_gb') || value.startsWith('en-gb')) return 'UK';
  return 'METRIC';
}

/** km, or miles for US. */
export function distanceOf(mm: number, units: UnitSystem): number {
  const km = mm / 1_000_000;
  return round(units === 'US' ? km / 1.609344 : km, 5);
}

/** m, or ft for US. */
export function elevationOf(mm: number, units: UnitSystem): number {
  const m = mm / 1000;
  return round(units === 'US' ? m * 3.28084 : m, 2);
}

/** kg, lb (US) or stone (UK). */
export function weightOf(kg: number, units: UnitSystem): number {
  if (units === 'US') return round(kg * 2.20462, 1);
  if (units === 'UK') return round(kg / 6.35029, 2);
  return round(kg, 1);
}

/** ml, or fl oz for US. */
export function waterOf(ml: number, units: UnitSystem): number {
  return round(units === 'US' ? ml / 29.5735 : ml, 1);
}

/** cm, or inches for US. */
export function lengthOf(cm: number, units: UnitSystem): number {
  return round(units === 'US' ? cm / 2.54 : cm, 1);
}

export function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}
