/**
 * Dexcom v3 records built from the glucose model: EGVs every 5 minutes per sensor session,
 * user events, calibrations, alerts, devices and data ranges. Records are generated per UTC
 * day on demand and cached. Visibility follows how data reaches Dexcom: phone apps upload
 * continuously, receivers only when docked (every few days), and the API lags by a delay.
 */
import type { DexcomAccount, DisplayDevice } from './accounts';
import {
  createGlucoseModel,
  READING_MS,
  type GlucoseModel,
  type SensorSession,
} from './glucose-model';
import { gaussian, hexFromParts, seededRandom, uuidFromParts } from '../common/prng';
import {
  DAY_MS,
  formatLocalDateTime,
  formatOffset,
  formatUtcDateTime,
  localDayIndex,
  localToEpoch,
  MINUTE_MS,
  parseDay,
  utcOffsetMinutes,
} from '../common/civil-time';

export type Generation = 'g6' | 'g7' | 'g715day';

export type EgvRecord = {
  recordId: string;
  systemTime: string;
  displayTime: string;
  transmitterId: string | null;
  transmitterTicks: number;
  value: number | null;
  status: 'unknown' | 'high' | 'low' | 'ok' | null;
  trend: string;
  trendRate: number | null;
  unit: 'mg/dL';
  rateUnit: 'mg/dL/min';
  displayDevice: DisplayDevice;
  transmitterGeneration: Generation;
};

export type EventRecord = {
  recordId: string;
  systemTime: string;
  displayTime: string;
  eventStatus: 'created';
  eventType: 'insulin' | 'carbs' | 'exercise' | 'health' | 'bloodGlucose' | 'notes';
  eventSubType: string | null;
  unit: 'units' | 'grams' | 'minutes' | 'mg/dL' | null;
  value: string | null;
  transmitterId: string | null;
  transmitterGeneration: Generation;
  displayDevice: DisplayDevice;
};

export type CalibrationRecord = {
  recordId: string;
  systemTime: string;
  displayTime: string;
  unit: 'mg/dL';
  value: number;
  transmitterId: string | null;
  transmitterTicks: number;
  transmitterGeneration: Generation;
  displayDevice: DisplayDevice;
};

export type AlertRecord = {
  recordId: string;
  systemTime: string;
  displayTime: string;
  alertName: string;
  alertState: 'activeAlarming' | 'activeSnoozed';
  transmitterId: string | null;
  transmitterGeneration: Generation;
  displayDevice: DisplayDevice;
  displayApp: string;
};

export type RangeResource = 'egvs' | 'events' | 'calibrations' | 'alerts';
type Timed<T> = { t: number; device: DisplayDevice; record: T };
type Bound = Timed<{ systemTime: string; displayTime: string }>;
type DayRecords = {
  egvs: Timed<EgvRecord>[];
  events: Timed<EventRecord>[];
  calibrations: Timed<CalibrationRecord>[];
  alerts: Timed<AlertRecord>[];
};
/** Resources generated together: alerts come from the same pass over the readings as EGVs. */
const GROUP: Record<RangeResource, 'cgm' | 'events' | 'calibrations'> = {
  egvs: 'cgm',
  alerts: 'cgm',
  events: 'events',
  calibrations: 'calibrations',
};

const MIN_HISTORY_DAYS = 420;
const RECEIVERS: DisplayDevice[] = ['receiver', 'touchscreenReceiver'];

export function createDexcomData(options: { delayMs: number }) {
  const models = new Map<string, GlucoseModel>();
  const cache = new Map<string, DayRecords>();

  const model = (account: DexcomAccount) => {
    let m = models.get(account.id);
    if (!m) models.set(account.id, (m = createGlucoseModel(account)));
    return m;
  };

  function firstDay(account: DexcomAccount, now: number): number {
    return Math.min(
      parseDay(account.dataStart) ?? 0,
      localDayIndex(account.timeZone, now) - MIN_HISTORY_DAYS,
    );
  }

  function sessions(account: DexcomAccount, now: number, until: number): SensorSession[] {
    return model(account).sessionsUntil(firstDay(account, now), until);
  }

  /** Latest record time a device has uploaded that the API already serves at `now`. */
  function visibleUntil(account: DexcomAccount, device: DisplayDevice, now: number): number {
    const served = now - options.delayMs;
    return RECEIVERS.includes(device) ? lastDockingAtOrBefore(account, served) : served;
  }

  /** Records of one resource with systemTime in [start, end) visible at `now`, newest first. */
  function range<K extends RangeResource>(
    account: DexcomAccount,
    resource: K,
    start: number,
    end: number,
    now: number,
  ): DayRecords[K][number]['record'][] {
    const out: DayRecords[K][number][] = [];
    const limits = new Map<DisplayDevice, number>();
    const limit = (device: DisplayDevice) => {
      let value = limits.get(device);
      if (value === undefined) limits.set(device, (value = visibleUntil(account, device, now)));
      return value;
    };
    for (let day = Math.floor(start / DAY_MS); day <= Math.floor((end - 1) / DAY_MS); day++) {
      for (const item of dayRecords(account, day, now, resource)[
        resource
      ] as DayRecords[K][number][]) {
        if (item.t >= start && item.t < end && item.t <= limit(item.device)) out.push(item);
      }
    }
    out.sort((a, b) => b.t - a.t);
    return out.map((item) => item.record) as DayRecords[K][number]['record'][];
  }

  /** One UTC day of records; only the resource's group is generated (the rest stay empty). */
  function dayRecords(
    account: DexcomAccount,
    utcDay: number,
    now: number,
    resource: RangeResource,
  ): DayRecords {
    const group = GROUP[resource];
    const key = `${account.id}|${firstDay(account, now)}|${utcDay}|${group}`;
    let records = cache.get(key);
    if (!records) {
      if (cache.size > 6000) cache.clear();
      records = generateDay(account, utcDay, now, group);
      cache.set(key, records);
    }
    return records;
  }

  function generateDay(
    account: DexcomAccount,
    utcDay: number,
    now: number,
    group: 'cgm' | 'events' | 'calibrations',
  ): DayRecords {
    const dayStart = utcDay * DAY_MS;
    const dayEnd = dayStart + DAY_MS;
    const records: DayRecords = { egvs: [], events: [], calibrations: [], alerts: [] };
    const dataStartMs = localToEpoch(account.timeZone, firstDay(account, now), 0);
    if (dayEnd <= dataStartMs) return records;
    const glucose = model(account);
    const all = sessions(account, now, dayEnd);
    for (const session of all) {
      if (group === 'events') break;
      if (group === 'cgm' && session.failedEarly) {
        // The app warns when the sensor stops sending, 20 minutes after the last reading.
        const t = session.end + 20 * MINUTE_MS;
        if (t >= dayStart && t < dayEnd)
          records.alerts.push(alertRecord(account, session, t, 'noReadings'));
      }
      if (session.end <= dayStart || session.readingsStart >= dayEnd) continue;
      const calibration = session.calibrationAt;
      if (group === 'calibrations') {
        if (
          calibration !== null &&
          calibration >= dayStart &&
          calibration < dayEnd &&
          calibration < session.end
        ) {
          records.calibrations.push(calibrationRecord(account, glucose, session, calibration));
        }
        continue;
      }
      const firstK = Math.max(0, Math.ceil((dayStart - session.readingsStart) / READING_MS));
      let previous: EgvRecord | undefined;
      let previousRaw =
        firstK > 0 ? glucose.glucoseAt(session.readingsStart + (firstK - 1) * READING_MS) : 0;
      for (let k = firstK; ; k++) {
        const t = session.readingsStart + k * READING_MS;
        if (t >= dayEnd || t >= session.end) break;
        const raw = glucose.glucoseAt(t);
        const egv = egvRecord(account, session, t, k, raw, previousRaw);
        records.egvs.push({ t, device: session.device, record: egv });
        if (k > 0) {
          // The reading before the day's first one is rebuilt so alerts at midnight are not lost.
          previous ??= egvRecord(
            account,
            session,
            t - READING_MS,
            k - 1,
            previousRaw,
            k > 1 ? glucose.glucoseAt(t - 2 * READING_MS) : previousRaw,
          );
          const alertName = alertBetween(account, previous, egv);
          if (alertName) records.alerts.push(alertRecord(account, session, t, alertName));
        }
        previous = egv;
        previousRaw = raw;
      }
    }
    if (group !== 'events') return records;
    const sessionAt = (t: number) => all.find((s) => s.start <= t && t < s.end);
    for (
      let localDay = localDayIndex(account.timeZone, dayStart);
      localDay <= localDayIndex(account.timeZone, dayEnd - 1);
      localDay++
    ) {
      for (const event of dayEvents(account, glucose, localDay, sessionAt)) {
        if (event.t >= dayStart && event.t < dayEnd && event.t >= dataStartMs)
          records.events.push(event);
      }
    }
    return records;
  }

  /** Earliest and latest visible record of a resource, optionally only those uploaded after `since`. */
  function bounds(
    account: DexcomAccount,
    resource: 'egvs' | 'events' | 'calibrations',
    now: number,
    since?: number,
  ): { start: Bound; end: Bound } | null {
    const dataStartMs = localToEpoch(account.timeZone, firstDay(account, now), 0);
    const newest = Math.max(...account.displayDevices.map((d) => visibleUntil(account, d, now)));
    let end: Bound | undefined;
    for (
      let day = Math.floor(newest / DAY_MS);
      day >= Math.floor(dataStartMs / DAY_MS) && !end;
      day--
    ) {
      const visible = (dayRecords(account, day, now, resource)[resource] as Bound[]).filter(
        (item) => item.t <= visibleUntil(account, item.device, now),
      );
      end = visible.reduce<Bound | undefined>(
        (best, item) => (!best || item.t > best.t ? item : best),
        undefined,
      );
    }
    if (!end) return null;
    // After lastSyncTime: records uploaded later than it (receivers upload at docking time).
    const threshold = (device: DisplayDevice) =>
      since === undefined
        ? -Infinity
        : RECEIVERS.includes(device)
          ? lastDockingAtOrBefore(account, since)
          : since;
    let start: Bound | undefined;
    const fromDay =
      since === undefined
        ? Math.floor(dataStartMs / DAY_MS)
        : Math.floor((since - 8 * DAY_MS) / DAY_MS);
    for (
      let day = Math.max(fromDay, Math.floor(dataStartMs / DAY_MS));
      day <= Math.floor(end.t / DAY_MS) && !start;
      day++
    ) {
      const items = dayRecords(account, day, now, resource)[resource] as Bound[];
      start = items
        .filter(
          (item) =>
            item.t > threshold(item.device) && item.t <= visibleUntil(account, item.device, now),
        )
        .reduce<Bound | undefined>(
          (best, item) => (!best || item.t < best.t ? item : best),
          undefined,
        );
    }
    return { start: start ?? end, end };
  }

  /** One entry per display device: the current transmitter and the last upload. */
  function devices(account: DexcomAccount, now: number) {
    const all = sessions(account, now, now);
    return account.displayDevices.map((device) => {
      const mine = all.filter((s) => s.device === device && s.start <= now);
      const current = mine[mine.length - 1] ?? all[0];
      const lastUpload = Math.max(
        ...mine.map((s) => Math.min(s.end, visibleUntil(account, device, now))),
        localToEpoch(account.timeZone, firstDay(account, now), 0),
      );
      return { device, session: current as SensorSession, lastUpload };
    });
  }

  /** Receivers upload when docked: on about a third of evenings, at most five days apart. */
  function lastDockingAtOrBefore(account: DexcomAccount, t: number): number {
    for (
      let day = localDayIndex(account.timeZone, t);
      day > localDayIndex(account.timeZone, t) - 7;
      day--
    ) {
      const random = seededRandom(account.id, 'dock', day);
      if (random() < 0.35 || day % 5 === 0) {
        const at = localToEpoch(account.timeZone, day, 1230 + Math.floor(random() * 90));
        if (at <= t) return at;
      }
    }
    return t - 7 * DAY_MS;
  }

  return { range, bounds, devices, firstDay, visibleUntil };
}

export type DexcomData = ReturnType<typeof createDexcomData>;

const transmitterIds = new Map<string, string>();

export function transmitterId(account: DexcomAccount, session: SensorSession): string {
  const key = `${account.id}|${session.transmitterIndex}`;
  let id = transmitterIds.get(key);
  if (!id) {
    if (transmitterIds.size > 10_000) transmitterIds.clear();
    transmitterIds.set(
      key,
      (id = hexFromParts(64, account.id, 'transmitter', session.transmitterIndex)),
    );
  }
  return id;
}

function calibrationRecord(
  account: DexcomAccount,
  glucose: GlucoseModel,
  session: SensorSession,
  t: number,
): Timed<CalibrationRecord> {
  const random = seededRandom(account.id, 'calibration', session.index);
  return {
    t,
    device: session.device,
    record: {
      recordId: uuidFromParts(account.id, 'calibration', t),
      systemTime: formatUtcDateTime(t),
      displayTime: displayTime(account, session.device, t),
      unit: 'mg/dL',
      value: clamp(Math.round(glucose.glucoseAt(t) + gaussian(random) * 7), 40, 400),
      transmitterId: transmitterId(account, session),
      transmitterTicks: Math.floor((t - session.transmitterStart) / 1000),
      transmitterGeneration: account.generation,
      displayDevice: session.device,
    },
  };
}

export function displayApp(account: DexcomAccount, device: DisplayDevice): string {
  if (RECEIVERS.includes(device)) return 'receiver';
  return account.generation === 'g6' ? 'G6' : 'G7';
}

/** Phone apps report local time with its offset; receivers only their local clock. */
export function displayTime(account: DexcomAccount, device: DisplayDevice, t: number): string {
  const offset = utcOffsetMinutes(account.timeZone, t);
  const local = formatLocalDateTime(t, offset);
  return RECEIVERS.includes(device) ? local : `${local}${formatOffset(offset * 60)}`;
}

/** `raw` is the model's glucose at t, `previousRaw` five minutes earlier (for the trend). */
function egvRecord(
  account: DexcomAccount,
  session: SensorSession,
  t: number,
  k: number,
  raw: number,
  previousRaw: number,
): EgvRecord {
  const value = clamp(Math.round(raw), 40, 400);
  const status = raw < 39.5 ? 'low' : raw > 400.5 ? 'high' : null;
  let trend = 'notComputable';
  let trendRate: number | null = null;
  // The first readings after warm-up have no trend yet.
  if (k >= 2) {
    trendRate = Math.round(((raw - previousRaw) / 5) * 10) / 10;
    trend = trendOf(trendRate);
  }
  return {
    recordId: uuidFromParts(account.id, 'egv', t),
    systemTime: formatUtcDateTime(t),
    displayTime: displayTime(account, session.device, t),
    transmitterId: transmitterId(account, session),
    transmitterTicks: Math.floor((t - session.transmitterStart) / 1000),
    value,
    status,
    trend,
    trendRate,
    unit: 'mg/dL',
    rateUnit: 'mg/dL/min',
    displayDevice: session.device,
    transmitterGeneration: account.generation,
  };
}

function trendOf(rate: number): string {
  if (rate > 3) return 'doubleUp';
  if (rate > 2) return 'singleUp';
  if (rate > 1) return 'fortyFiveUp';
  if (rate >= -1) return 'flat';
  if (rate >= -2) return 'fortyFiveDown';
  if (rate >= -3) return 'singleDown';
  return 'doubleDown';
}

/** The alert a reading raises when it crosses a threshold the previous one had not. */
function alertBetween(
  account: DexcomAccount,
  previous: EgvRecord,
  current: EgvRecord,
): string | null {
  const before = previous.value ?? 0;
  const now = current.value ?? 0;
  if (before > 55 && now <= 55) return 'urgentLow';
  if (before > 70 && now <= 70) return 'low';
  if (before < account.highAlert && now >= account.highAlert) return 'high';
  const projected = (egv: EgvRecord) => (egv.value ?? 0) + 20 * (egv.trendRate ?? 0);
  if (now > 55 && projected(current) <= 55 && projected(previous) > 55) return 'urgentLowSoon';
  if (account.logging === 'many') {
    if ((current.trendRate ?? 0) >= 3 && (previous.trendRate ?? 0) < 3) return 'rise';
    if ((current.trendRate ?? 0) <= -3 && (previous.trendRate ?? 0) > -3) return 'fall';
  }
  return null;
}

function alertRecord(
  account: DexcomAccount,
  session: SensorSession,
  t: number,
  alertName: string,
): Timed<AlertRecord> {
  const snoozed = seededRandom(account.id, 'alert', t)() < 0.15;
  return {
    t,
    device: session.device,
    record: {
      recordId: uuidFromParts(account.id, 'alert', alertName, t),
      systemTime: formatUtcDateTime(t),
      displayTime: displayTime(account, session.device, t),
      alertName,
      alertState: snoozed ? 'activeSnoozed' : 'activeAlarming',
      transmitterId: transmitterId(account, session),
      transmitterGeneration: account.generation,
      displayDevice: session.device,
      displayApp: displayApp(account, session.device),
    },
  };
}

const HEALTH = ['illness', 'stress', 'highSymptoms', 'lowSymptoms', 'cycle', 'alcohol'];
const NOTES = [
  'Pizza night',
  'Forgot bolus',
  'Sensor itchy',
  'Long walk',
  'Late dinner',
  'Travel day',
];

function dayEvents(
  account: DexcomAccount,
  glucose: GlucoseModel,
  localDay: number,
  sessionAt: (t: number) => SensorSession | undefined,
): Timed<EventRecord>[] {
  const random = seededRandom(account.id, 'events', localDay);
  const plan = glucose.plan(localDay);
  const many = account.logging === 'many';
  const events: Timed<EventRecord>[] = [];
  const add = (
    t: number,
    eventType: EventRecord['eventType'],
    eventSubType: string | null,
    unit: EventRecord['unit'],
    value: string | null,
  ) => {
    const session = sessionAt(t);
    const device = session?.device ?? (account.displayDevices[0] as DisplayDevice);
    events.push({
      t,
      device,
      record: {
        recordId: uuidFromParts(account.id, 'event', eventType, t),
        systemTime: formatUtcDateTime(t),
        displayTime: displayTime(account, device, t),
        eventStatus: 'created',
        eventType,
        eventSubType,
        unit,
        value,
        transmitterId: session ? transmitterId(account, session) : null,
        transmitterGeneration: account.generation,
        displayDevice: device,
      },
    });
  };
  for (const meal of plan.meals) {
    if (random() < (many ? 0.9 : 0.2)) add(meal.at, 'carbs', null, 'grams', String(meal.carbs));
    if (account.glucose.usesInsulin && random() < (many ? 0.95 : 0.5)) {
      const units = Math.round((meal.carbs / 12) * meal.bolusFactor * 2) / 2;
      add(
        meal.at - (5 + Math.floor(random() * 10)) * MINUTE_MS,
        'insulin',
        'fastActing',
        'units',
        units.toFixed(1),
      );
    }
  }
  if (plan.longActing && random() < (many ? 0.95 : 0.7)) {
    add(plan.longActing.at, 'insulin', 'longActing', 'units', plan.longActing.units.toFixed(1));
  }
  if (plan.exercise && random() < (many ? 0.8 : 0.5)) {
    add(
      plan.exercise.at,
      'exercise',
      plan.exercise.intensity,
      'minutes',
      String(plan.exercise.minutes),
    );
  }
  if (random() < 0.03)
    add(
      localToEpoch(account.timeZone, localDay, 600),
      'health',
      HEALTH[Math.floor(random() * HEALTH.length)] ?? 'stress',
      null,
      null,
    );
  if (random() < 0.04)
    add(
      localToEpoch(account.timeZone, localDay, 1260),
      'notes',
      null,
      null,
      NOTES[Math.floor(random() * NOTES.length)] ?? 'Note',
    );
  if (account.displayDevices.some((d) => RECEIVERS.includes(d)) && random() < 0.25) {
    const t = localToEpoch(account.timeZone, localDay, 400 + Math.floor(random() * 60));
    add(
      t,
      'bloodGlucose',
      null,
      'mg/dL',
      String(clamp(Math.round(glucose.glucoseAt(t) * (1 + gaussian(random) * 0.05)), 40, 400)),
    );
  }
  return events;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
