import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletenessGrid } from '@trialpulse/shared';
import { participantDevices, syncCursors } from '../db/schema';
import { createManualClock } from '../lib/clock';
import { addConnection } from '../modules/completeness/test-support';
import {
  dailyValue,
  heartRateMinutes,
  sleepSession,
} from '../modules/completeness/reading-generators';
import type { ExportPlan } from '../modules/export/export-plan';
import { writeExport } from '../modules/export/export-writer';
import { TRACKER_METRICS } from '../modules/export/test-support';
import { addParticipant, createTrial } from '../modules/participants/test-support';
import type { ReadingInput } from '../modules/sync/readings.service';
import { readingsServiceFor } from '../modules/sync/test-support';
import { createStaffUser, createTeam, signIn, type TestClient } from './fixtures';
import { createTestApp, type TestApp } from './test-app';

/**
 * One truth (issue 28): participants in three time zones far apart — Kiritimati (UTC+14),
 * Auckland (UTC+13 in November) and New York, whose clocks go back on 1 November 2026 inside
 * the range — with stored readings. Every figure of the weekly tiles, the Fitbit overview,
 * the completeness grid and its adherence CSV equals a computation from scratch in local
 * days, written here with the IANA zones (Intl) rather than the app's civil-days module;
 * and the CSV, XLSX, FHIR, Open mHealth and adherence files of one export agree day by day.
 */

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
// Sunday 8 November 2026, 12:00 UTC: already the 9th in Kiritimati and Auckland.
const NOW = new Date('2026-11-08T12:00:00Z');
const ZONES = {
  kiritimati: 'Pacific/Kiritimati',
  auckland: 'Pacific/Auckland',
  newYork: 'America/New_York',
} as const;
type Who = keyof typeof ZONES;
const WHO = Object.keys(ZONES) as Who[];
const FIRST_DAY = '2026-10-19';
const DAY = 86_400_000;

// --- From scratch: IANA zones through Intl, nothing of the app.
function zoneParts(zone: string, at: number) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(at))
      .map((part) => [part.type, part.value]),
  );
  return parts as Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string>;
}
const zoneDate = (zone: string, at: number) => {
  const p = zoneParts(zone, at);
  return `${p.year}-${p.month}-${p.day}`;
};
const zoneOffset = (zone: string, at: number) => {
  const p = zoneParts(zone, at);
  const wall = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
  return Math.round((wall - Math.floor(at / 1000) * 1000) / 60_000);
};
/** The instant of a wall-clock time in a zone. */
const wallTime = (zone: string, day: string, hour: number, minute = 0) => {
  const guess = Date.parse(`${day}T00:00:00Z`) + (hour * 60 + minute) * 60_000;
  let at = guess - zoneOffset(zone, guess) * 60_000;
  at = guess - zoneOffset(zone, at) * 60_000;
  return at;
};
const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
const daysFrom = (start: string, end: string) => {
  const days: string[] = [];
  for (let day = start; day <= end; day = addDays(day, 1)) days.push(day);
  return days;
};

/** Wear minutes of a local day index: none, short, long enough, long enough. */
const WEAR = [0, 300, 660, 720, 630, 0, 610];
const STEPS = (index: number, who: number) => (WEAR[index % 7] ? 4000 + index * 37 + who * 11 : 0);

type Plan = { day: string; wear: number; steps: number; sleepMinutes: number };

describe(`one truth across pages and files (${MODE})`, () => {
  let ctx: TestApp;
  let admin: TestClient;
  let trialId: number;
  let teamId: number;
  const ids = {} as Record<Who, number>;
  const codes = {} as Record<Who, string>;
  const plans = {} as Record<Who, Plan[]>;
  const today = {} as Record<Who, string>;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'one-truth-'));
    ctx = await createTestApp({ clock: createManualClock(NOW) });
    const db = ctx.database.db;
    const team = await createTeam(db, { maxTrials: 10, maxParticipants: 100, hiddenFields: [] });
    teamId = team.id;
    const adminUser = await createStaffUser(db, { role: 'Admin', teamId });
    admin = await signIn(ctx.app, db, adminUser);
    const trial = await createTrial(db, admin, []);
    trialId = trial.id;
    const readings = readingsServiceFor(db, () => NOW);
    for (const [whoIndex, who] of WHO.entries()) {
      const added = await addParticipant(admin, { trialId });
      ids[who] = added.participantId;
      codes[who] = added.participant_code;
      const zone = ZONES[who];
      today[who] = zoneDate(zone, NOW.getTime());
      const owner = { participantId: ids[who], teamId };
      // Linked again three days ago (a re-link or a demo restart): data began on the first day.
      await addConnection(db, {
        ...owner,
        brand: 'Fitbit',
        authorizedAt: new Date(NOW.getTime() - 3 * DAY),
        deviceLastSyncAt: new Date(NOW.getTime() - 3_600_000),
      });
      const rows: ReadingInput[] = [];
      plans[who] = [];
      // Every local day up to the participant's today (today's readings so far included).
      for (const [index, day] of daysFrom(FIRST_DAY, today[who]).entries()) {
        const isToday = day === today[who];
        const wear = isToday ? 90 : WEAR[index % 7]!;
        const steps = isToday ? 1200 : STEPS(index, whoIndex);
        const sleepMinutes = wear ? 420 + (index % 3) * 15 : 0;
        plans[who].push({ day, wear, steps, sleepMinutes });
        if (wear > 0) {
          // 30 minutes just after local midnight, the rest from noon local: in Kiritimati
          // and Auckland the UTC date is the day before, in New York the evening is the next.
          const early = wallTime(zone, day, 0, 10);
          rows.push(...heartRateMinutes(owner, new Date(early), 30, zoneOffset(zone, early)));
          const noon = wallTime(zone, day, 12);
          rows.push(...heartRateMinutes(owner, new Date(noon), wear - 30, zoneOffset(zone, noon)));
          const wake = wallTime(zone, day, 7);
          rows.push(
            sleepSession(
              owner,
              new Date(wake - sleepMinutes * 60_000),
              new Date(wake),
              zoneOffset(zone, wake),
            ),
          );
        }
        rows.push(dailyValue(owner, day, 'steps', steps));
      }
      await readings.store(rows);
      // The sync has fetched the whole range: data views answer from the store.
      const [connection] = await db
        .select({ id: participantDevices.id })
        .from(participantDevices)
        .where(eq(participantDevices.participantId, ids[who]));
      for (const metricKey of ['steps', 'heart_rate', 'sleep_duration'])
        await db.insert(syncCursors).values({
          participantDeviceId: connection!.id,
          metricKey,
          teamId,
          backfillFrom: new Date(`${addDays(FIRST_DAY, -30)}T00:00:00Z`),
          syncedUntil: NOW,
        });
    }
  });

  afterAll(async () => {
    await ctx?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** From scratch: the 7 local days before the participant's today, and the 7 before. */
  const weeks = (who: Who) => {
    const lastEnd = addDays(today[who], -1);
    return {
      last: daysFrom(addDays(lastEnd, -6), lastEnd),
      prev: daysFrom(addDays(lastEnd, -13), addDays(lastEnd, -7)),
    };
  };
  const planOf = (who: Who, day: string) => plans[who].find((plan) => plan.day === day);
  const sumSteps = (who: Who, days: string[]) =>
    days.reduce((sum, day) => sum + (planOf(who, day)?.steps ?? 0), 0);

  it('the weekly tiles and the Fitbit overview count the same 7 complete local days', async () => {
    for (const who of WHO) {
      const { last, prev } = weeks(who);
      const response = await admin.post(`/api/fitbitDataLocalDB/${ids[who]}`, {});
      expect(response.statusCode, response.body).toBe(200);
      const tiles = response.json();
      expect([tiles.last_7days_start, tiles.last_7days_end], who).toEqual([last[0], last.at(-1)]);
      expect([tiles.prev_7days_start, tiles.prev_7days_end], who).toEqual([prev[0], prev.at(-1)]);
      expect(tiles.total_steps_last_7days, who).toBe(sumSteps(who, last));
      expect(tiles.total_steps_prev_7days, who).toBe(sumSteps(who, prev));
      const nights = last.map((day) => planOf(who, day)!.sleepMinutes).filter(Boolean);
      expect(tiles.avrg_sleep_duration_last_7days, who).toBe(
        Math.round((nights.reduce((a, b) => a + b, 0) / nights.length) * 10) / 10,
      );

      // The overview asks the 14 days ending the tiles' last day (as the web page does).
      const overview = await admin.get(
        `/api/getFitbitServerParticipantData/${ids[who]}/hidden/activities/steps/date/${prev[0]}/${last.at(-1)}.json`,
      );
      expect(overview.statusCode, overview.body).toBe(200);
      const series = overview.json()['activities-steps'] as { dateTime: string; value: string }[];
      const values = new Map(series.map((entry) => [entry.dateTime, Number(entry.value)]));
      const total = (days: string[]) => days.reduce((sum, day) => sum + (values.get(day) ?? 0), 0);
      expect(total(last), who).toBe(sumSteps(who, last));
      expect(total(prev), who).toBe(sumSteps(who, prev));
    }
  });

  it('the completeness grid and its adherence CSV equal local days computed from scratch', async () => {
    const response = await admin.get(`/api/trials/${trialId}/completeness?days=30`);
    expect(response.statusCode, response.body).toBe(200);
    const grid = response.json() as CompletenessGrid;
    const csv = await admin.get(
      `/api/trials/${trialId}/completeness/adherence.csv?from=${grid.days[0]}&to=${grid.days.at(-1)}`,
    );
    expect(csv.statusCode, csv.body).toBe(200);
    const csvRows = parse(csv.body, { columns: true }) as Record<string, string>[];
    for (const who of WHO) {
      const row = grid.rows.find((candidate) => candidate.participantId === ids[who])!;
      let expected = 0;
      let valid = 0;
      for (const [index, day] of grid.days.entries()) {
        const plan = planOf(who, day);
        const wear = plan?.wear ?? 0;
        // Expected from the first day with data (not the re-link); today is in progress.
        const state =
          day < FIRST_DAY
            ? 'none'
            : wear >= 600
              ? 'valid'
              : day >= today[who]
                ? 'in_progress'
                : wear > 0 || (plan?.steps ?? 0) > 0
                  ? 'partial'
                  : 'missing';
        if (state === 'valid' || state === 'partial' || state === 'missing') expected += 1;
        if (state === 'valid') valid += 1;
        const steps = plan && (plan.wear > 0 || plan.steps > 0) ? plan.steps : null;
        const sleep = plan?.sleepMinutes ? plan.sleepMinutes : null;
        const at = `${who} ${day}`;
        expect(row.wearMinutes[index], at).toBe(wear);
        expect(row.steps[index], at).toBe(steps);
        expect(row.sleepMinutes[index], at).toBe(sleep);
        expect(row.states[index], at).toBe(state);
        const line = csvRows.find(
          (candidate) =>
            candidate.participant_code === row.participantCode && candidate.date === day,
        )!;
        expect(
          [line.state, Number(line.wear_minutes), line.steps, line.sleep_minutes],
          `CSV ${at}`,
        ).toEqual([
          state,
          wear,
          steps === null ? '' : String(steps),
          sleep === null ? '' : String(sleep),
        ]);
      }
      expect([row.expectedDays, row.validDays], who).toEqual([expected, valid]);
      expect(row.validPercent, who).toBe(Math.round((valid / expected) * 1000) / 10);
    }
  });

  it('CSV, XLSX, FHIR, Open mHealth and adherence files agree day by day with local days', async () => {
    const start = '2026-10-26';
    const end = '2026-11-04';
    const db = ctx.database.db;
    const readings = readingsServiceFor(db, () => NOW);
    const participants = WHO.map((who) => ({
      participantId: ids[who],
      participantCode: codes[who],
    }));
    const metrics = ['heart_rate', 'steps'];
    const plan = (format: 'csv' | 'xlsx'): ExportPlan => ({
      jobId: 1,
      teamId,
      request: {
        fileName: `one truth ${format}`,
        startDate: start,
        endDate: end,
        participantIds: participants.map((p) => p.participantId),
        metrics,
        exportMode: 'single-tab',
        format,
        extras: format === 'csv' ? ['fhir', 'openmhealth', 'adherence'] : [],
        trialId,
        deviceId: 1,
      },
      device: { id: 1, friendlyName: 'Fitbit', brand: 'Fitbit', deviceType: 'TRACKER' },
      participants,
      metrics: metrics.map((key) => {
        const metric = TRACKER_METRICS.find((m) => m.metricKey === key)!;
        return { ...metric, metricKey: key };
      }),
      softwareVersion: 'one-truth',
      exportedAt: NOW,
    });
    const io = {
      iterate: readings.iterate,
      csv: readings.csv,
      dayOffsets: readings.dayOffsets,
      progress: async () => true,
    };
    const files = new Map<string, Buffer>();
    for (const format of ['csv', 'xlsx'] as const) {
      const work = fs.mkdtempSync(path.join(dir, `work-${format}-`));
      const zipPath = path.join(dir, `${format}.zip`);
      await writeExport(plan(format), io, work, zipPath);
      const zip = await JSZip.loadAsync(fs.readFileSync(zipPath));
      for (const name of Object.keys(zip.files))
        files.set(name, Buffer.from(await zip.files[name]!.async('uint8array')));
    }
    const find = (suffix: string) =>
      [...files.entries()].find(([name]) => name.endsWith(suffix))![1];
    const key = (code: string, day: string) => `${code}|${day}`;

    // Daily steps from scratch: every local day of the range, as stored.
    const expectedSteps = new Map<string, number>();
    const expectedMinutes = new Map<string, number>();
    for (const who of WHO)
      for (const day of daysFrom(start, end)) {
        expectedSteps.set(key(codes[who], day), planOf(who, day)!.steps);
        expectedMinutes.set(key(codes[who], day), planOf(who, day)!.wear);
      }

    // CSV: steps by their local date; heart-rate minutes by local date of each sample.
    const csvRows = parse(find('-Data.csv').toString('utf8'), { columns: true }) as Record<
      string,
      string
    >[];
    const csvSteps = new Map<string, number>();
    const csvMinutes = new Map<string, number>();
    for (const row of csvRows) {
      const day = row.local_time!.slice(0, 10);
      const k = key(row.participant_code!, day);
      if (row.metric_key === 'steps') csvSteps.set(k, Number(row.value));
      if (row.metric_key === 'heart_rate') csvMinutes.set(k, (csvMinutes.get(k) ?? 0) + 1);
    }
    expect(csvSteps).toEqual(expectedSteps);
    expect(csvMinutes).toEqual(new Map([...expectedMinutes].filter(([, minutes]) => minutes > 0)));

    // XLSX: the same rows.
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(find('.xlsx') as unknown as ArrayBuffer);
    const xlsxSteps = new Map<string, number>();
    for (const sheet of workbook.worksheets) {
      const header = (sheet.getRow(1).values as unknown[]).map(String);
      sheet.eachRow((row, number) => {
        if (number === 1) return;
        const cell = (name: string) => row.getCell(header.indexOf(name)).text;
        if (cell('metric_key') === 'steps')
          xlsxSteps.set(
            key(cell('participant_code'), cell('local_time').slice(0, 10)),
            Number(cell('value')),
          );
      });
    }
    expect(xlsxSteps).toEqual(expectedSteps);

    // FHIR: a daily value's effectiveDateTime is its date.
    const fhirSteps = new Map<string, number>();
    for (const line of find('.ndjson').toString('utf8').trim().split('\n')) {
      const observation = JSON.parse(line);
      if (observation.code.coding[0].code !== '41950-7') continue;
      fhirSteps.set(
        key(observation.subject.identifier.value, observation.effectiveDateTime),
        observation.valueQuantity.value,
      );
    }
    expect(fhirSteps).toEqual(expectedSteps);

    // Open mHealth: a daily value spans its local day, midnight to midnight, with the
    // offsets the day began and ended with (New York's 1 November: −04:00 to −05:00).
    const omhSteps = new Map<string, number>();
    const offsetText = (minutes: number) =>
      `${minutes < 0 ? '-' : '+'}${String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0')}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
    for (const point of JSON.parse(find('-openmhealth.json').toString('utf8'))) {
      if (point.header.schema_id.name !== 'step-count') continue;
      const interval = point.body.effective_time_frame.time_interval;
      const day = interval.start_date_time.slice(0, 10);
      const who = WHO.find((candidate) => codes[candidate] === point.header.user_id)!;
      const zone = ZONES[who];
      expect(interval.start_date_time, `${who} ${day}`).toBe(
        `${day}T00:00:00${offsetText(zoneOffset(zone, wallTime(zone, day, 0)))}`,
      );
      expect(interval.end_date_time, `${who} ${day}`).toBe(
        `${addDays(day, 1)}T00:00:00${offsetText(zoneOffset(zone, wallTime(zone, addDays(day, 1), 0)))}`,
      );
      omhSteps.set(key(point.header.user_id, day), point.body.step_count.value);
    }
    expect(omhSteps).toEqual(expectedSteps);
    type StepPoint = {
      header: { user_id: string; schema_id: { name: string } };
      body: {
        effective_time_frame: { time_interval: { start_date_time: string } };
      };
    };
    const newYorkDst = (JSON.parse(find('-openmhealth.json').toString('utf8')) as StepPoint[]).find(
      (point) =>
        point.header.user_id === codes.newYork &&
        point.header.schema_id.name === 'step-count' &&
        point.body.effective_time_frame.time_interval.start_date_time.startsWith('2026-11-01'),
    );
    expect(newYorkDst!.body.effective_time_frame.time_interval).toEqual({
      start_date_time: '2026-11-01T00:00:00-04:00',
      end_date_time: '2026-11-02T00:00:00-05:00',
    });

    // Adherence file: heart-rate minutes per local day.
    const adherence = parse(find('-adherence.csv').toString('utf8'), { columns: true }) as Record<
      string,
      string
    >[];
    const adherenceMinutes = new Map(
      adherence.map((row) => [
        key(row.participant_code!, row.date!),
        Number(row.heart_rate_minutes),
      ]),
    );
    expect(adherenceMinutes).toEqual(expectedMinutes);
  });
});
