import type { StoredReading } from './readings.repository';

/**
 * The device a reading came with, named from its own provenance (issue 28, decision 0186),
 * never from the catalog entry an export was asked for: the brand and the model the provider
 * reported with the reading — Google Health's data-source device ("Fitbit Charge 6"), Omron's
 * device model ("Omron HEM-7600T"), Dexcom's transmitter generation and display device
 * ("Dexcom G6 (display: iOS)"; the transmitter id is the row's data source). A reading
 * whose provider named no model is its brand alone; a seeded demo reading says so.
 *
 * `READING_DEVICE_SQL` is the same rule in SQL (the CSV data written by the database,
 * readings-csv.ts): the two must stay equal, as the export tests check row for row.
 */
export function readingDevice(
  reading: Pick<StoredReading, 'brand' | 'dataSource' | 'valueJson'> & { upstream: string },
): string {
  if (reading.upstream === 'demo') return DEMO_DEVICE;
  if (reading.brand === 'Dexcom') {
    const json = isRecord(reading.valueJson) ? reading.valueJson : {};
    const generation = nonEmpty(json.generation);
    const display = nonEmpty(json.displayDevice);
    return `Dexcom${generation ? ` ${generation.toUpperCase()}` : ''}${display ? ` (display: ${display})` : ''}`;
  }
  const model = nonEmpty(reading.dataSource);
  return model && model !== LEGACY_FITBIT_SOURCE ? `${reading.brand} ${model}` : reading.brand;
}

/** What a seeded demo reading's device is called in every export format. */
export const DEMO_DEVICE = 'TrialPulse demo data (seeded, no device)';

/** The legacy Fitbit Web API's placeholder source (no model): the brand alone. */
const LEGACY_FITBIT_SOURCE = 'fitbit-web-api';

/** `readingDevice` over the row `r` of device_readings, as text (literals only: COPY takes no parameters). */
export const READING_DEVICE_SQL = `case
  when r.upstream = 'demo' then '${DEMO_DEVICE}'
  when r.brand = 'Dexcom' then 'Dexcom'
    || coalesce(' ' || upper(nullif(case when jsonb_typeof(r.value_json) = 'object' then r.value_json->>'generation' end, '')), '')
    || coalesce(' (display: ' || nullif(case when jsonb_typeof(r.value_json) = 'object' then r.value_json->>'displayDevice' end, '') || ')', '')
  when nullif(r.data_source, '') is null or r.data_source = '${LEGACY_FITBIT_SOURCE}' then r.brand::text
  else r.brand::text || ' ' || r.data_source
end`;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const nonEmpty = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;
