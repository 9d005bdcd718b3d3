import {
  BRAND_READING_DEVICES,
  brandAndModel,
  sqlText,
  type ReadingProvenance,
} from '../../providers';

/**
 * The device a reading came with, named from its own provenance (issue 28, decision 0186),
 * never from the catalog entry an export was asked for: the brand and the model the provider
 * reported with the reading, by its brand's rule (`BRAND_READING_DEVICES` in the provider
 * registry, each rule in its brand's folder; decision 0211). A reading whose provider named no
 * model is its brand alone; a seeded demo reading says so. This file names no brand.
 *
 * `READING_DEVICE_SQL` is the same rule in SQL (the CSV data written by the database,
 * readings-csv.ts): the two must stay equal, as the export tests check row for row.
 */
export function readingDevice(reading: ReadingProvenance & { upstream: string }): string {
  if (reading.upstream === 'demo') return DEMO_DEVICE;
  return (BY_BRAND.get(reading.brand) ?? BRAND_AND_MODEL).name(reading);
}

/** What a seeded demo reading's device is called in every export format. */
export const DEMO_DEVICE = 'TrialPulse demo data (seeded, no device)';

const BY_BRAND = new Map(BRAND_READING_DEVICES.map((rule) => [rule.brand as string, rule]));

/** A brand without a rule of its own: the brand and the data source's model, if any. */
const BRAND_AND_MODEL = brandAndModel();

/** `readingDevice` over the row `r` of device_readings, as text (literals only: COPY takes no parameters). */
export const READING_DEVICE_SQL = `case
  when r.upstream = 'demo' then ${sqlText(DEMO_DEVICE)}
${BRAND_READING_DEVICES.map((rule) => `  when r.brand = ${sqlText(rule.brand)} then ${rule.sql}`).join('\n')}
  else ${BRAND_AND_MODEL.sql}
end`;
