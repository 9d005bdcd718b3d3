/**
 * Synthetic Omron measurements. Everything a local day holds is a pure function of
 * (account id, day), generated on demand and cached, so any `since` range is cheap and the
 * same request always returns the same records. A record is visible once its upload time
 * (measurement time plus the phone app's sync delay) has passed on the simulator clock.
 */
import type { OmronAccount } from './accounts';
import { gaussian, hashParts, seededRandom } from '../common/prng';
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

export const OMRON_TYPES = ['bloodpressure', 'weight', 'activity'] as const;
export type OmronType = (typeof OMRON_TYPES)[number];

type RecordTimes = {
  id: number;
  dateTime: string;
  dateTimeLocal: string;
  dateTimeUtcOffset: string;
};

export type BloodPressureRecord = RecordTimes & {
  systolic: number;
  diastolic: number;
  bloodPressureUnits: 'mmHg';
  pulse: number;
  pulseUnits: 'bpm';
  deviceType: string;
  possibleAfib?: boolean;
};

export type WeightRecord = RecordTimes & {
  weight: number;
  weightUnits: 'kg';
  bodyFatPercentage: number;
  bmi: number;
  deviceType: string;
};

export type HourlyActivity = { dateTimeLocal: string; steps: number; aerobicSteps: number };

export type ActivityRecord = RecordTimes & {
  steps: number;
  aerobicSteps: number;
  calories: number;
  caloriesUnits: 'kcal';
  distance: number;
  distanceUnits: 'km';
  aerobicWalkingTime: number;
  aerobicWalkingTimeUnits: 'min';
  deviceType: string;
  /** Only with includeHourlyActivity=true. */
  hourlyActivity?: HourlyActivity[];
};

export type OmronRecord = BloodPressureRecord | WeightRecord | ActivityRecord;

/** A generated record with the instants the simulator needs for ordering and visibility. */
export type Generated<T extends OmronRecord = OmronRecord> = {
  type: OmronType;
  record: T;
  measuredAt: number;
  uploadAt: number;
};

type DayData = {
  bloodpressure: Generated<BloodPressureRecord>[];
  weight: Generated<WeightRecord>[];
  activity: Generated<ActivityRecord>[];
};

/** Local days before "now" always covered, whatever the account's fixed start day. */
const MIN_HISTORY_DAYS = 420;
const TYPE_NUMBER: Record<OmronType, number> = { bloodpressure: 1, weight: 2, activity: 3 };

export function createOmronData() {
  const cache = new Map<string, DayData>();

  function day(account: OmronAccount, localDay: number): DayData {
    const key = `${account.id}|${localDay}`;
    let data = cache.get(key);
    if (!data) {
      if (cache.size > 20_000) cache.clear();
      data = generateDay(account, localDay);
      cache.set(key, data);
    }
    return data;
  }

  function firstDay(account: OmronAccount, now: number): number {
    const fixed = parseDay(account.dataStart) ?? 0;
    return Math.min(fixed, localDayIndex(account.timeZone, now) - MIN_HISTORY_DAYS);
  }

  /**
   * Records of the given types measured on or after local day `sinceDay` and uploaded by
   * `now`, oldest first per type.
   */
  function visibleSince(
    account: OmronAccount,
    sinceDay: number,
    types: readonly OmronType[],
    now: number,
  ): Record<OmronType, Generated[]> {
    const result: Record<OmronType, Generated[]> = { bloodpressure: [], weight: [], activity: [] };
    const lastDay = localDayIndex(account.timeZone, now);
    for (let d = Math.max(sinceDay, firstDay(account, now)); d <= lastDay; d++) {
      const data = day(account, d);
      for (const type of types) {
        for (const item of data[type]) if (item.uploadAt <= now) result[type].push(item);
      }
    }
    for (const type of types) result[type].sort(compareGenerated);
    return result;
  }

  /** Types with records uploaded in (from, to], and the latest such upload time. */
  function uploadsBetween(account: OmronAccount, from: number, to: number) {
    const types = new Set<OmronType>();
    let latest = 0;
    // Uploads can trail measurements by up to a week (periodic sync), so look back that far.
    const startDay = Math.max(localDayIndex(account.timeZone, from) - 8, firstDay(account, to));
    const endDay = localDayIndex(account.timeZone, to);
    for (let d = Math.max(startDay, endDay - 60); d <= endDay; d++) {
      const data = day(account, d);
      for (const type of OMRON_TYPES) {
        for (const item of data[type]) {
          if (item.uploadAt > from && item.uploadAt <= to) {
            types.add(type);
            latest = Math.max(latest, item.uploadAt);
          }
        }
      }
    }
    return { types: [...types], latest };
  }

  return { visibleSince, uploadsBetween, firstDay };
}

export type OmronData = ReturnType<typeof createOmronData>;

export function compareGenerated(a: Generated, b: Generated): number {
  return a.measuredAt - b.measuredAt || a.record.id - b.record.id;
}

function generateDay(account: OmronAccount, localDay: number): DayData {
  const data: DayData = { bloodpressure: [], weight: [], activity: [] };
  const random = seededRandom(account.id, 'day', localDay);
  if (account.gaps) {
    const block = Math.floor(localDay / account.gaps.blockDays);
    if (seededRandom(account.id, 'gap', block)() < account.gaps.chance) return data;
  }
  const bp = account.bloodPressure;
  const dayNoise = gaussian(random) * bp.spread * 0.6;
  const drift = bp.drift * Math.sin((2 * Math.PI * localDay) / 240 + (hashParts(account.id) % 7));
  const seasonal = 3 * Math.cos((2 * Math.PI * (localDay - 15)) / 365.25);
  const dayBase = bp.systolic + drift + seasonal + dayNoise;

  const sessions: Array<{ minute: number; morning: boolean }> = [];
  if (random() < bp.morningChance)
    sessions.push({ minute: 375 + Math.floor(random() * 150), morning: true });
  if (random() < bp.eveningChance)
    sessions.push({ minute: 1170 + Math.floor(random() * 170), morning: false });

  for (const session of sessions) {
    const readings = 1 + Math.floor(random() * bp.maxReadings);
    let minute = session.minute;
    for (let i = 0; i < readings; i++) {
      const measuredAt = localToEpoch(account.timeZone, localDay, minute);
      const afib = bp.afibDetection ? random() < bp.afibDetection.chance : false;
      // Morning surge, and the usual drop between the first and later readings of a session.
      let systolic =
        dayBase + (session.morning ? 4 : -2) - i * 3 + gaussian(random) * bp.spread * 0.5;
      systolic = clamp(Math.round(systolic), 85, 210);
      let diastolic = bp.diastolic + 0.55 * (systolic - bp.systolic) + gaussian(random) * 3.5;
      diastolic = clamp(Math.round(diastolic), 45, 130);
      if (systolic - diastolic < 22) diastolic = systolic - 22 - Math.floor(random() * 8);
      let pulse =
        bp.pulse +
        (session.morning ? -2 : 3) +
        gaussian(random) * 5 +
        (afib ? 15 + random() * 15 : 0);
      pulse = clamp(Math.round(pulse), 40, 150);
      const record: BloodPressureRecord = {
        ...recordTimes(account, 'bloodpressure', measuredAt),
        systolic,
        diastolic,
        bloodPressureUnits: 'mmHg',
        pulse,
        pulseUnits: 'bpm',
        deviceType: bp.device,
        ...(bp.afibDetection ? { possibleAfib: afib } : {}),
      };
      data.bloodpressure.push({
        type: 'bloodpressure',
        record,
        measuredAt,
        uploadAt: uploadTime(account, measuredAt, random),
      });
      minute += 1 + Math.floor(random() * 2);
    }
  }

  const weight = account.weight;
  if (weight && random() < weight.chance) {
    const minute =
      (sessions[0]?.morning ? sessions[0].minute : 420) - 12 - Math.floor(random() * 20);
    const measuredAt = localToEpoch(account.timeZone, localDay, minute);
    const weekday = new Date(localDay * DAY_MS).getUTCDay();
    const kg =
      weight.kg +
      1.6 * Math.sin((2 * Math.PI * localDay) / 180 + (hashParts(account.id, 'w') % 5)) +
      (weekday === 1 || weekday === 0 ? 0.35 : 0) +
      gaussian(random) * 0.3;
    const rounded = Math.round(kg * 10) / 10;
    const record: WeightRecord = {
      ...recordTimes(account, 'weight', measuredAt),
      weight: rounded,
      weightUnits: 'kg',
      bodyFatPercentage:
        Math.round((weight.bodyFat + 0.4 * (rounded - weight.kg) + gaussian(random) * 0.5) * 10) /
        10,
      bmi: Math.round((rounded / (weight.heightM * weight.heightM)) * 10) / 10,
      deviceType: weight.device,
    };
    data.weight.push({
      type: 'weight',
      record,
      measuredAt,
      uploadAt: uploadTime(account, measuredAt, random),
    });
  }

  const activity = account.activity;
  if (activity) {
    const weekday = new Date(localDay * DAY_MS).getUTCDay();
    const weekend = weekday === 0 || weekday === 6;
    const steps = Math.max(
      300,
      Math.round(activity.steps * (weekend ? 0.8 : 1) * (1 + gaussian(random) * 0.3)),
    );
    const aerobicSteps = Math.round(steps * (0.12 + random() * 0.25));
    const measuredAt = localToEpoch(account.timeZone, localDay, 0);
    const record: ActivityRecord = {
      ...recordTimes(account, 'activity', measuredAt),
      steps,
      aerobicSteps,
      calories: Math.round(steps * 0.045),
      caloriesUnits: 'kcal',
      distance: Math.round(((steps * activity.strideM) / 1000) * 100) / 100,
      distanceUnits: 'km',
      aerobicWalkingTime: Math.round(aerobicSteps / 105),
      aerobicWalkingTimeUnits: 'min',
      deviceType: activity.device,
    };
    // The day's total is uploaded once the day is over, at the next sync.
    const dayEnd = localToEpoch(account.timeZone, localDay + 1, 0);
    const uploadAt =
      account.sync === 'periodic'
        ? uploadTime(account, dayEnd, random)
        : localToEpoch(account.timeZone, localDay + 1, 420 + Math.floor(random() * 90));
    data.activity.push({ type: 'activity', record, measuredAt, uploadAt });
  }
  return data;
}

/** Hour-by-hour split of a day's steps (waking hours only), derived from the record id. */
export function hourlyActivity(record: ActivityRecord): HourlyActivity[] {
  const random = seededRandom('hourly', record.id);
  const weights = Array.from({ length: 24 }, (_, hour) =>
    hour < 7 || hour > 22 ? 0 : 0.4 + random() * (hour === 8 || hour === 12 || hour === 18 ? 2 : 1),
  );
  const total = weights.reduce((sum, w) => sum + w, 0);
  const day = record.dateTimeLocal.slice(0, 10);
  let stepsLeft = record.steps;
  let aerobicLeft = record.aerobicSteps;
  return weights.map((w, hour) => {
    const last = hour === 23;
    const steps = last ? stepsLeft : Math.min(stepsLeft, Math.round((record.steps * w) / total));
    const aerobic = last
      ? aerobicLeft
      : Math.min(aerobicLeft, Math.round((record.aerobicSteps * w) / total));
    stepsLeft -= steps;
    aerobicLeft -= aerobic;
    return {
      dateTimeLocal: `${day}T${String(hour).padStart(2, '0')}:00:00`,
      steps,
      aerobicSteps: aerobic,
    };
  });
}

function recordTimes(account: OmronAccount, type: OmronType, measuredAt: number): RecordTimes {
  const offset = utcOffsetMinutes(account.timeZone, measuredAt);
  const prefix = 100 + (hashParts(account.id) % 900);
  return {
    id: prefix * 1e10 + TYPE_NUMBER[type] * 1e9 + Math.floor(measuredAt / MINUTE_MS),
    dateTime: `${formatUtcDateTime(measuredAt)}Z`,
    dateTimeLocal: formatLocalDateTime(measuredAt, offset),
    dateTimeUtcOffset: formatOffset(offset * 60),
  };
}

/**
 * When the phone app uploads a measurement: a minute or two later for most users; for
 * `periodic` users at the next evening sync, which happens every few days (at most 6 apart).
 */
function uploadTime(account: OmronAccount, measuredAt: number, random: () => number): number {
  if (account.sync === 'immediate')
    return measuredAt + MINUTE_MS + Math.floor(random() * 2 * MINUTE_MS);
  const firstDay = localDayIndex(account.timeZone, measuredAt);
  for (let d = firstDay; d < firstDay + 8; d++) {
    const minute = syncMinute(account, d);
    if (minute === null) continue;
    const at = localToEpoch(account.timeZone, d, minute);
    if (at >= measuredAt) return at;
  }
  return measuredAt + 7 * DAY_MS;
}

function syncMinute(account: OmronAccount, localDay: number): number | null {
  const random = seededRandom(account.id, 'sync', localDay);
  const syncs = random() < 0.25 || (localDay + (hashParts(account.id) % 6)) % 6 === 0;
  return syncs ? 1200 + Math.floor(random() * 150) : null;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
