import type { ExportExtra, ExportFormat } from '@trialpulse/shared';
import { adherenceSink } from './adherence.sink';
import { csvSink } from './csv.sink';
import type { SinkFactory } from './export-sink';
import { fhirSink } from './fhir.sink';
import { openMHealthSink } from './open-mhealth.sink';
import { parquetSink } from './parquet.sink';
import { xlsxSink } from './xlsx.sink';

/** The sink of each data format (`format` of the request): exactly one per export. */
export const DATA_SINKS: Record<ExportFormat, SinkFactory> = {
  csv: csvSink,
  xlsx: xlsxSink,
  parquet: parquetSink,
};

/**
 * The sink of each optional file (`extras` of the request), in the order their files go
 * into the ZIP (after the data, before the dictionary and the manifest).
 */
export const EXTRA_SINKS: Record<ExportExtra, SinkFactory> = {
  fhir: fhirSink,
  openmhealth: openMHealthSink,
  adherence: adherenceSink,
};
