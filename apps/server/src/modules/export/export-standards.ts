import { createHash } from 'node:crypto';
import { localDayInterval } from '@trialpulse/shared/civil-days';
import { readingDevice } from '../sync/reading-device';
import { readingBound } from '../../providers';
import type { StoredReading } from '../sync/readings.service';

/**
 * Standard codes for the optional export formats (reference device-data.md §4, decision
 * 0046): FHIR R4 Observations with LOINC codes and Open mHealth data points. Metrics
 * without a code here are left out of those files (they stay in the CSV/XLSX data).
 */

type Quantity = { unit: string; ucum: string };

type FhirMapping = Quantity & {
  codings: { code: string; display: string }[];
  category: 'vital-signs' | 'activity' | 'laboratory';
};

const UCUM = 'http://unitsofmeasure.org';
const LOINC = 'http://loinc.org';
const OBSERVATION_CATEGORY = 'http://terminology.hl7.org/CodeSystem/observation-category';

export const FHIR_MAPPINGS: Record<string, FhirMapping> = {
  heart_rate: {
    codings: [{ code: '8867-4', display: 'Heart rate' }],
    unit: 'beats/minute',
    ucum: '/min',
    category: 'vital-signs',
  },
  resting_heart_rate: {
    codings: [{ code: '40443-4', display: 'Heart rate --resting' }],
    unit: 'beats/minute',
    ucum: '/min',
    category: 'vital-signs',
  },
  steps: {
    codings: [{ code: '41950-7', display: 'Number of steps in 24 hour Measured' }],
    unit: 'steps',
    ucum: '{steps}',
    category: 'activity',
  },
  systolic: {
    codings: [{ code: '8480-6', display: 'Systolic blood pressure' }],
    unit: 'mmHg',
    ucum: 'mm[Hg]',
    category: 'vital-signs',
  },
  diastolic: {
    codings: [{ code: '8462-4', display: 'Diastolic blood pressure' }],
    unit: 'mmHg',
    ucum: 'mm[Hg]',
    category: 'vital-signs',
  },
  weight: {
    codings: [{ code: '29463-7', display: 'Body weight' }],
    unit: 'kg',
    ucum: 'kg',
    category: 'vital-signs',
  },
  spo2: {
    codings: [
      { code: '2708-6', display: 'Oxygen saturation in Arterial blood' },
      { code: '59408-5', display: 'Oxygen saturation in Arterial blood by Pulse oximetry' },
    ],
    unit: '%',
    ucum: '%',
    category: 'vital-signs',
  },
  sleep_duration: {
    codings: [{ code: '93832-4', display: 'Sleep duration' }],
    unit: 'min',
    ucum: 'min',
    category: 'activity',
  },
  egv: {
    codings: [{ code: '99504-3', display: 'Glucose [Mass/volume] in Interstitial fluid' }],
    unit: 'mg/dL',
    ucum: 'mg/dL',
    category: 'laboratory',
  },
  calories: {
    codings: [{ code: '41979-6', display: 'Calories burned in 24 hour Calculated' }],
    unit: 'kcal',
    ucum: 'kcal',
    category: 'activity',
  },
  // A blood-pressure monitor's pulse, measured with each reading, and a body scale's.
  pulse: {
    codings: [{ code: '8867-4', display: 'Heart rate' }],
    unit: 'beats/minute',
    ucum: '/min',
    category: 'vital-signs',
  },
  body_fat: {
    codings: [{ code: '41982-0', display: 'Percentage of body fat Measured' }],
    unit: '%',
    ucum: '%',
    category: 'vital-signs',
  },
  bmi: {
    codings: [{ code: '39156-5', display: 'Body mass index (BMI) [Ratio]' }],
    unit: 'kg/m2',
    ucum: 'kg/m2',
    category: 'vital-signs',
  },
};

/** The blood-pressure panel (FHIR R4 vital-signs `bp` profile) its two readings are components of. */
export const BP_PANEL = {
  code: '85354-9',
  display: 'Blood pressure panel with all children optional',
};

type OmhMapping = {
  name: string;
  version: string;
  /** The body's measure property and its unit. */
  property: string;
  unit: string;
  /** Extra required body fields. */
  extra?: Record<string, unknown>;
  /** The schema requires a time interval (daily totals, sessions). */
  interval?: boolean;
};

export const OMH_MAPPINGS: Record<string, OmhMapping> = {
  heart_rate: { name: 'heart-rate', version: '2.0', property: 'heart_rate', unit: 'beats/min' },
  steps: {
    name: 'step-count',
    version: '3.0',
    property: 'step_count',
    unit: 'steps',
    interval: true,
  },
  weight: { name: 'body-weight', version: '3.0', property: 'body_weight', unit: 'kg' },
  egv: {
    name: 'blood-glucose',
    version: '4.0',
    property: 'blood_glucose',
    unit: 'mg/dL',
    extra: { specimen_source: 'interstitial fluid' },
  },
  sleep_duration: {
    name: 'sleep-duration',
    version: '2.0',
    property: 'sleep_duration',
    unit: 'min',
    interval: true,
  },
  spo2: { name: 'oxygen-saturation', version: '2.0', property: 'oxygen_saturation', unit: '%' },
  pulse: { name: 'heart-rate', version: '2.0', property: 'heart_rate', unit: 'beats/min' },
};

const INTERPRETATION = 'http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation';

/** FHIR: the bound as `valueQuantity.comparator` and an interpretation (L / H) that says why. */
function boundFields(reading: StoredReading, bound: '<' | '>' | null) {
  if (!bound) return {};
  const low = bound === '<';
  return {
    interpretation: [
      {
        coding: [{ system: INTERPRETATION, code: low ? 'L' : 'H', display: low ? 'Low' : 'High' }],
        text: `${low ? 'Below' : 'Above'} the sensor's reporting range (${bound} ${reading.value} mg/dL)`,
      },
    ],
  };
}

/** Open mHealth: the bound in words (the schema's `user_notes`), the value stays the bound. */
function boundNote(reading: StoredReading): string | null {
  const bound = readingBound(reading);
  if (!bound) return null;
  return `${bound === '<' ? 'LOW' : 'HIGH'}: ${bound === '<' ? 'below' : 'above'} the sensor's reporting range (${bound} ${reading.value} mg/dL)`;
}

/** A daily reading (stored at the civil date's 00:00 UTC without an offset) covers the whole day. */
function isDaily(reading: StoredReading): boolean {
  return (
    reading.utcOffsetMinutes === null &&
    reading.endAt === null &&
    reading.recordedAt.getUTCHours() === 0 &&
    reading.recordedAt.getUTCMinutes() === 0
  );
}

/**
 * The UTC offsets a participant's local day began and ended with, or null when no reading
 * of the participant says (decision 0182: a daily value's interval is its local day).
 */
export type DayOffsetOf = (day: string) => { start: number; end: number } | null;

/**
 * A daily value's interval: its local civil day from midnight to midnight with the offsets
 * the day began and ended with (`2026-11-01T00:00:00-04:00` … `2026-11-02T00:00:00-05:00`);
 * UTC when nothing says the participant's offset.
 */
function dailyInterval(reading: StoredReading, offsetOf: DayOffsetOf) {
  const day = reading.recordedAt.toISOString().slice(0, 10);
  const offsets = offsetOf(day) ?? { start: 0, end: 0 };
  return localDayInterval(day, offsets.start, offsets.end);
}

/** Offsets from a participant's days with any (the nearest day before, else after, when a day has none). */
export function dayOffsetLookup(
  days: readonly { day: string; start: number; end: number }[],
): DayOffsetOf {
  const byDay = new Map(days.map((entry) => [entry.day, entry]));
  const sorted = [...days].sort((a, b) => (a.day < b.day ? -1 : 1));
  return (day) => {
    const exact = byDay.get(day);
    if (exact) return { start: exact.start, end: exact.end };
    const before = sorted.filter((entry) => entry.day < day).at(-1);
    if (before) return { start: before.end, end: before.end };
    const after = sorted.find((entry) => entry.day > day);
    return after ? { start: after.start, end: after.start } : null;
  };
}

const NO_OFFSETS: DayOffsetOf = () => null;

/** Whom a reading is about; the device is each reading's own (`readingDevice`, decision 0186). */
export type SubjectInfo = { participantId: number; participantCode: string };

/** The participant's identifier system in every FHIR file (documented in the dictionary). */
export const PARTICIPANT_SYSTEM = 'urn:trialpulse:participant';
/** The trial's identifier system (its TrialPulse id). */
export const TRIAL_SYSTEM = 'urn:trialpulse:trial';

const patientId = (participantId: number) => `participant-${participantId}`;

function subjectOf(subject: Pick<SubjectInfo, 'participantId' | 'participantCode'>) {
  return {
    reference: `Patient/${patientId(subject.participantId)}`,
    identifier: { system: PARTICIPANT_SYSTEM, value: subject.participantCode },
    display: subject.participantCode,
  };
}

/** A participant as a FHIR R4 Patient: the trial's participant code only, no personal data. */
export function fhirPatient(participant: { participantId: number; participantCode: string }) {
  return {
    resourceType: 'Patient',
    id: patientId(participant.participantId),
    identifier: [{ system: PARTICIPANT_SYSTEM, value: participant.participantCode }],
  };
}

/** The trial as a FHIR R4 Group of the exported participants. */
export function fhirGroup(
  trialId: number,
  participants: readonly { participantId: number; participantCode: string }[],
) {
  return {
    resourceType: 'Group',
    id: `trial-${trialId}`,
    identifier: [{ system: TRIAL_SYSTEM, value: String(trialId) }],
    type: 'person',
    actual: true,
    quantity: participants.length,
    member: participants.map((participant) => ({
      entity: {
        reference: `Patient/${patientId(participant.participantId)}`,
        display: participant.participantCode,
      },
    })),
  };
}

/**
 * The trial as a FHIR R4 Group without its members, named: Bulk Data's Group search (which
 * trials a client may export). The same id and identifier as `fhirGroup`'s.
 */
export function fhirTrialGroup(trial: { trialId: number; trialName: string }) {
  return {
    resourceType: 'Group',
    id: `trial-${trial.trialId}`,
    identifier: [{ system: TRIAL_SYSTEM, value: String(trial.trialId) }],
    type: 'person',
    actual: true,
    name: trial.trialName,
  };
}

/** One FHIR R4 Observation (NDJSON line), or null for a metric without a LOINC code here. */
export function toFhirObservation(reading: StoredReading, subject: SubjectInfo): object | null {
  const mapping = FHIR_MAPPINGS[reading.metricKey];
  if (!mapping || reading.value === null) return null;
  const bound = readingBound(reading);
  const daily = isDaily(reading);
  const effective = daily
    ? { effectiveDateTime: reading.recordedAt.toISOString().slice(0, 10) }
    : reading.endAt
      ? {
          effectivePeriod: {
            start: reading.recordedAt.toISOString(),
            end: reading.endAt.toISOString(),
          },
        }
      : { effectiveDateTime: reading.recordedAt.toISOString() };
  return {
    resourceType: 'Observation',
    id: `${reading.participantId}-${reading.metricKey.replace(/_/g, '-')}-${reading.recordedAt.getTime()}`.slice(
      0,
      64,
    ),
    status: 'final',
    category: [{ coding: [{ system: OBSERVATION_CATEGORY, code: mapping.category }] }],
    code: { coding: mapping.codings.map((coding) => ({ system: LOINC, ...coding })) },
    subject: subjectOf(subject),
    ...effective,
    valueQuantity: {
      value: reading.value,
      ...(bound && { comparator: bound }),
      unit: mapping.unit,
      system: UCUM,
      code: mapping.ucum,
    },
    ...boundFields(reading, bound),
    device: { display: readingDevice(reading) },
  };
}

/**
 * The Observations of one participant's readings, page by page, for every FHIR file we
 * write (the ZIP's `…-fhir-observations.ndjson` and Bulk Data's Observation files; issue 31):
 * one place builds them. With `pairs`, a systolic and a diastolic reading of one instant are
 * one blood-pressure panel (decision 0183): readings come by metric, so a participant's
 * diastolic readings wait for their systolic ones, and one without its partner comes alone
 * from `end`. A reading without a LOINC mapping here (or without a value) has no Observation:
 * `skipped` counts them per metric.
 */
export function fhirObservationBuilder(options: { pairs: boolean }) {
  const { pairs } = options;
  let diastolic = new Map<number, StoredReading>();
  const skipped = new Map<string, number>();
  const single = (reading: StoredReading, subject: SubjectInfo) => {
    const observation = toFhirObservation(reading, subject);
    if (!observation) skipped.set(reading.metricKey, (skipped.get(reading.metricKey) ?? 0) + 1);
    return observation;
  };
  return {
    skipped,
    /** The Observations of one page of the participant's readings (ordered by metric, time). */
    page(readings: readonly StoredReading[], subject: SubjectInfo): object[] {
      const out: object[] = [];
      for (const reading of readings) {
        if (pairs && reading.metricKey === 'diastolic' && reading.value !== null) {
          diastolic.set(reading.recordedAt.getTime(), reading);
          continue;
        }
        const partner =
          pairs && reading.metricKey === 'systolic' && reading.value !== null
            ? diastolic.get(reading.recordedAt.getTime())
            : undefined;
        if (partner) {
          diastolic.delete(reading.recordedAt.getTime());
          out.push(toFhirBloodPressure(reading, partner, subject));
          continue;
        }
        const observation = single(reading, subject);
        if (observation) out.push(observation);
      }
      return out;
    },
    /** After the participant's last page: the diastolic readings left without a partner. */
    end(subject: SubjectInfo): object[] {
      const out: object[] = [];
      for (const reading of diastolic.values()) {
        const observation = single(reading, subject);
        if (observation) out.push(observation);
      }
      diastolic = new Map();
      return out;
    },
  };
}

/** The device system of Device resources: its value is the name Observations carry (`device.display`). */
export const DEVICE_SYSTEM = 'urn:trialpulse:device';

/**
 * A reading's device (`readingDevice`, the `device.display` of its Observations) as a FHIR R4
 * Device: Bulk Data's Device files (issue 31). The id is derived from the name, so every
 * export names a device alike.
 */
export function fhirDevice(display: string) {
  return {
    resourceType: 'Device',
    id: `device-${createHash('sha256').update(display).digest('hex').slice(0, 16)}`,
    identifier: [{ system: DEVICE_SYSTEM, value: display }],
    deviceName: [{ name: display, type: 'user-friendly-name' }],
  };
}

/**
 * One blood-pressure reading as the FHIR R4 `bp` profile has it: an Observation coded
 * 85354-9 with the systolic (8480-6) and diastolic (8462-4) values as components, no value
 * of its own. The two readings share their instant (one measurement of the monitor).
 */
export function toFhirBloodPressure(
  systolic: StoredReading,
  diastolic: StoredReading,
  subject: SubjectInfo,
): object {
  const component = (reading: StoredReading) => {
    const mapping = FHIR_MAPPINGS[reading.metricKey]!;
    return {
      code: { coding: mapping.codings.map((coding) => ({ system: LOINC, ...coding })) },
      valueQuantity: { value: reading.value, unit: 'mmHg', system: UCUM, code: 'mm[Hg]' },
    };
  };
  return {
    resourceType: 'Observation',
    id: `${systolic.participantId}-bp-${systolic.recordedAt.getTime()}`.slice(0, 64),
    status: 'final',
    category: [{ coding: [{ system: OBSERVATION_CATEGORY, code: 'vital-signs' }] }],
    code: { coding: [{ system: LOINC, ...BP_PANEL }] },
    subject: subjectOf(subject),
    effectiveDateTime: systolic.recordedAt.toISOString(),
    component: [component(systolic), component(diastolic)],
    device: { display: readingDevice(systolic) },
  };
}

/** One Open mHealth `blood-pressure` 4.0 data point from a systolic and a diastolic reading. */
export function openMHealthBloodPressure(
  systolic: StoredReading,
  diastolic: StoredReading,
  subject: SubjectInfo,
  createdAt: string,
): string {
  const uuid = omhUuid(systolic);
  return JSON.stringify({
    header: {
      id: uuid,
      uuid,
      schema_id: { namespace: 'omh', name: 'blood-pressure', version: '4.0' },
      creation_date_time: createdAt,
      source_creation_date_time: createdAt,
      acquisition_provenance: { source_name: readingDevice(systolic), modality: 'sensed' },
      user_id: subject.participantCode,
    },
    body: {
      systolic_blood_pressure: { value: systolic.value, unit: 'mmHg' },
      diastolic_blood_pressure: { value: diastolic.value, unit: 'mmHg' },
      effective_time_frame: { date_time: systolic.recordedAt.toISOString() },
    },
  });
}

/** One Open mHealth data point, or null for a metric without a schema here. */
export function toOpenMHealth(
  reading: StoredReading,
  subject: SubjectInfo,
  createdAt: string,
  offsetOf: DayOffsetOf = NO_OFFSETS,
): object | null {
  const mapping = OMH_MAPPINGS[reading.metricKey];
  if (!mapping || reading.value === null) return null;
  const start = reading.recordedAt;
  const end = reading.endAt;
  const timeFrame = isDaily(reading)
    ? {
        time_interval: (({ start: from, end: to }) => ({
          start_date_time: from,
          end_date_time: to,
        }))(dailyInterval(reading, offsetOf)),
      }
    : mapping.interval || end
      ? {
          time_interval: {
            start_date_time: start.toISOString(),
            end_date_time: (end ?? start).toISOString(),
          },
        }
      : { date_time: start.toISOString() };
  const uuid = omhUuid(reading);
  return {
    // Open mHealth header-1.x (data-point-1.0) requires id, creation_date_time and schema_id;
    // uuid and source_creation_date_time are the same facts under IEEE 1752.1's names.
    header: {
      id: uuid,
      uuid,
      schema_id: { namespace: 'omh', name: mapping.name, version: mapping.version },
      creation_date_time: createdAt,
      source_creation_date_time: createdAt,
      acquisition_provenance: { source_name: readingDevice(reading), modality: 'sensed' },
      user_id: subject.participantCode,
    },
    body: {
      [mapping.property]: { value: reading.value, unit: mapping.unit },
      ...mapping.extra,
      effective_time_frame: timeFrame,
      ...(boundNote(reading) !== null && { user_notes: boundNote(reading) }),
    },
  };
}

/**
 * Open mHealth data points as JSON text, the same text as `JSON.stringify(toOpenMHealth(…))`
 * (export-standards.test.ts), for one participant and export: the parts every point of a
 * metric shares are serialised once, and a point is one string built from its uuid, value
 * and time, without an object graph per reading. A year of minute heart rate is half a
 * million points: the objects were what the export held and collected (decision 0133).
 */
export function openMHealthSerializer(
  subject: SubjectInfo,
  createdAt: string,
  offsetOf: DayOffsetOf = NO_OFFSETS,
): (reading: StoredReading) => string | null {
  // Per metric and device (a participant's readings come with few devices, decision 0186).
  const parts = new Map<string, { header: string; measure: string; extra: string } | null>();
  const partsOf = (metricKey: string, device: string) => {
    const key = `${metricKey}\u0000${device}`;
    let found = parts.get(key);
    if (found !== undefined) return found;
    const mapping = OMH_MAPPINGS[metricKey];
    found = mapping
      ? {
          header: `,${JSON.stringify({
            schema_id: { namespace: 'omh', name: mapping.name, version: mapping.version },
            creation_date_time: createdAt,
            source_creation_date_time: createdAt,
            acquisition_provenance: { source_name: device, modality: 'sensed' },
            user_id: subject.participantCode,
          }).slice(1, -1)}},"body":{${JSON.stringify(mapping.property)}:{"value":`,
          measure: `,"unit":${JSON.stringify(mapping.unit)}}`,
          extra: mapping.extra ? `,${JSON.stringify(mapping.extra).slice(1, -1)}` : '',
        }
      : null;
    parts.set(key, found);
    return found;
  };
  return (reading) => {
    const mapping = OMH_MAPPINGS[reading.metricKey];
    const shared = mapping ? partsOf(reading.metricKey, readingDevice(reading)) : null;
    if (!mapping || !shared || reading.value === null) return null;
    const start = reading.recordedAt;
    const end = reading.endAt;
    const daily = isDaily(reading) ? dailyInterval(reading, offsetOf) : null;
    const timeFrame = daily
      ? `{"time_interval":{"start_date_time":"${daily.start}","end_date_time":"${daily.end}"}}`
      : mapping.interval || end
        ? `{"time_interval":{"start_date_time":"${start.toISOString()}","end_date_time":"${(end ?? start).toISOString()}"}}`
        : `{"date_time":"${start.toISOString()}"}`;
    const uuid = omhUuid(reading);
    const note = boundNote(reading);
    const notes = note === null ? '' : `,"user_notes":${JSON.stringify(note)}`;
    return `{"header":{"id":"${uuid}","uuid":"${uuid}"${shared.header}${JSON.stringify(reading.value)}${shared.measure}${shared.extra},"effective_time_frame":${timeFrame}${notes}}}`;
  };
}

/** A stable UUID (version-4 layout) from the reading's key, so a re-export names the same data point alike. */
function omhUuid(reading: StoredReading): string {
  const s = createHash('sha256')
    .update(
      `${reading.participantId}|${reading.metricKey}|${reading.recordedAt.getTime()}|${reading.brand}`,
    )
    .digest('hex');
  const variant = ((parseInt(s[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-4${s.slice(13, 16)}-${variant}${s.slice(17, 20)}-${s.slice(20, 32)}`;
}
