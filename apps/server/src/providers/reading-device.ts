import type { DeviceBrandName } from '@trialpulse/shared';

/**
 * How a brand names the device a stored reading came with (issue 28, decision 0186; behind
 * the registry by decision 0210): once in TypeScript (XLSX, FHIR, Open mHealth and the CSV
 * written in the process) and once in SQL over the row `r` of device_readings (the CSV
 * written by the database, `readings-csv.ts`). The two must stay equal, as the export tests
 * check row for row. The registry combines every brand's rule (`readingDevice` in the sync
 * module); this file names no brand.
 */
export type ReadingDeviceRule = {
  brand: DeviceBrandName;
  name(reading: ReadingProvenance): string;
  /** The same rule as a SQL text expression (literals only: COPY takes no parameters). */
  sql: string;
};

/** What a reading says of its device: its brand, its data source and its value. */
export type ReadingProvenance = { brand: string; dataSource?: string | null; valueJson: unknown };

/** A rule's naming alone: the function and its SQL twin. */
export type ReadingDeviceNaming = Omit<ReadingDeviceRule, 'brand'>;

/**
 * The brand and the model the provider reported as the reading's data source ("Omron
 * HEM-7600T"); the brand alone when there is none, or when the source is the upstream's
 * placeholder that names no model (`placeholder`).
 */
export function brandAndModel(options: { placeholder?: string } = {}): ReadingDeviceNaming {
  const { placeholder } = options;
  return {
    name: (reading) => {
      const model = nonEmpty(reading.dataSource);
      return model && model !== placeholder ? `${reading.brand} ${model}` : reading.brand;
    },
    sql: `case
    when nullif(r.data_source, '') is null${placeholder === undefined ? '' : ` or r.data_source = ${sqlText(placeholder)}`} then r.brand::text
    else r.brand::text || ' ' || r.data_source
  end`,
  };
}

/** A JSON object field of the reading's value, when it is a non-empty string. */
export function valueText(valueJson: unknown, field: string): string | null {
  return isRecord(valueJson) ? nonEmpty(valueJson[field]) : null;
}

/** `valueText` in SQL: the field of `r.value_json` as text, null when absent or empty. */
export function valueTextSql(field: string): string {
  return `nullif(case when jsonb_typeof(r.value_json) = 'object' then r.value_json->>${sqlText(field)} end, '')`;
}

/** A SQL string literal (quotes doubled). */
export function sqlText(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const nonEmpty = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;
