import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { globalDeviceCatalog, participantDevices, participants } from '../../db/schema';
import { civilDateIn, civilToInstant } from '../../lib/civil-time';
import type { ReadingInput, ReadingsService } from '../sync/readings.service';
import { dayRange, isoDay } from './day-states';
import {
  bloodPressure,
  cgmReadings,
  dailyValue,
  heartRateMinutes,
  heartRateSeconds,
  sleepSession,
  weight,
} from './reading-generators';

const DAYS = 30;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * Demo mode: 30 days of stored readings for the linked demo participants, so the
 * completeness grid and strips have something to show before any sync ran (decision
 * 0053). Deterministic: SLEEP-001 wears the tracker 7–14 hours a day (some days below the
 * 10-hour default, so a threshold change recolours them) and measures blood pressure most
 * mornings; SLEEP-002 left the tracker on the charger a week ago; GLUCO-001 has a CGM
 * with changing sensor usage and one whole day of 1-second Fitbit heart rate (86,400
 * samples, yesterday on its Fitbit account's clock: the one-day view's full-resolution case,
 * decisions 0068 and 0105); WEIGHT-001 steps on the scale. Skipped when any of them
 * already has readings (a restart, or synced data).
 *
 * Every seeded reading is stored with the upstream `demo` (decision 0186).
 *
 * The sync's backfill later fetches the same days from the linked accounts: readings a
 * linked connection will backfill (the last `syncBackfillDays`) are not seeded, or they
 * would be counted beside the synced ones (decision 0112), except the 1-second day.
 */
export async function seedDemoReadings(deps: {
  db: Db;
  readings: Pick<ReadingsService, 'store' | 'latestByParticipant'>;
  now?: Date;
  /**
   * The IANA time zone of the Fitbit account a participant is linked to (demo mode: the
   * simulator's), when known: the clock its synced heart rate carries.
   */
  fitbitTimeZoneOf?: (participantCode: string) => string | undefined;
  /**
   * The minute heart rate (bpm, 0 = not worn) of a participant's linked Fitbit account on a
   * local date, as the simulator samples it: the 1-second day follows it (decision 0172).
   */
  fitbitMinuteHeartRateOf?: (
    participantCode: string,
    date: string,
  ) => ArrayLike<number> | undefined;
  /** How far back the sync's backfill reaches (SYNC_BACKFILL_DAYS; demo default 60). */
  syncBackfillDays?: number;
}) {
  const now = deps.now ?? new Date();
  const rows = await deps.db
    .select({
      id: participants.id,
      teamId: participants.teamId,
      code: participants.participantCode,
    })
    .from(participants)
    .where(
      inArray(participants.participantCode, ['SLEEP-001', 'SLEEP-002', 'GLUCO-001', 'WEIGHT-001']),
    );
  if (rows.length === 0) return { stored: 0 };
  const teamId = rows[0]!.teamId;
  const existing = await deps.readings.latestByParticipant(
    teamId,
    rows.map((row) => row.id),
  );
  if (existing.length > 0) return { stored: 0 };

  const owner = (code: string) => {
    const row = rows.find((candidate) => candidate.code === code);
    return row ? { participantId: row.id, teamId: row.teamId } : null;
  };
  const offset = -300; // the demo site is in US Central time (UTC−5)
  // The last demo day is the site's yesterday, a whole day in the past: the UTC date's
  // yesterday would still be running there before 05:00 UTC (readings in the future).
  const days = dayRange(isoDay(new Date(now.getTime() + offset * 60_000 - DAY_MS)), DAYS);
  const readings: ReadingInput[] = [];
  const sleep1 = owner('SLEEP-001');
  const sleep2 = owner('SLEEP-002');
  const gluco = owner('GLUCO-001');
  const scale = owner('WEIGHT-001');
  days.forEach((day, index) => {
    const midnightUtc = Date.parse(`${day}T00:00:00Z`) - offset * 60_000; // local midnight as an instant
    const at = (hours: number) => new Date(midnightUtc + hours * HOUR_MS);
    if (sleep1) {
      const hours = 7 + ((index * 5) % 8); // 7–14 h
      readings.push(...heartRateMinutes(sleep1, at(7), hours * 60, offset));
      readings.push(dailyValue(sleep1, day, 'steps', 4000 + ((index * 911) % 6000)));
      readings.push(sleepSession(sleep1, at(-1.5), at(6.5), offset));
      if (index % 4 !== 3) readings.push(...bloodPressure(sleep1, at(7.25), offset));
    }
    if (sleep2 && index < DAYS - 7) {
      readings.push(...heartRateMinutes(sleep2, at(8), (9 + (index % 4)) * 60, offset));
    }
    if (gluco) {
      const usage = [1, 0.95, 0.6, 0.85, 1, 0.4, 0.9][index % 7]!;
      readings.push(...cgmReadings(gluco, at(0), Math.round(288 * usage), offset));
    }
    if (scale && index % 2 === 0) readings.push(weight(scale, at(6.75), offset));
  });
  const linked = await backfilledLinks(
    deps.db,
    rows.map((row) => row.id),
  );
  const backfillFrom = now.getTime() - (deps.syncBackfillDays ?? 60) * DAY_MS;
  const seeded = readings.filter(
    (reading) =>
      reading.recordedAt.getTime() < backfillFrom ||
      !linked.has(`${reading.participantId}|${reading.brand}|${reading.metricKey}`),
  );
  // The 1-second day is seeded whatever the backfill: the sync's samples land on its
  // instants (same clock, decision 0105) and replace those seconds; the mirror keeps the
  // seconds no sync stored (decision 0112), so the day stays whole and counts once.
  if (gluco)
    seeded.push(
      ...oneSecondDay(gluco, now, offset, deps.fitbitTimeZoneOf?.('GLUCO-001'), (date) =>
        deps.fitbitMinuteHeartRateOf?.('GLUCO-001', date),
      ),
    );
  // Seeded rows come from no provider: their own upstream, so no export or page passes them
  // off as a provider's data (decision 0186). A sync that later stores the account's sample
  // on a seeded instant replaces the row with its own upstream.
  for (const reading of seeded) reading.upstream = 'demo';
  const result = await deps.readings.store(seeded);
  return { stored: result.inserted };
}

/**
 * "participant|brand|metric" of every metric the seed writes that a linked, syncable
 * connection of the participants will backfill (decision 0112): the sync stores the
 * account's own readings there, at other instants than the seed's, and the mirror does not
 * delete what no sync stored, so a seeded reading there would be counted beside them.
 */
async function backfilledLinks(db: Db, participantIds: number[]): Promise<Set<string>> {
  const connections = await db
    .select({
      participantId: participantDevices.participantId,
      brand: globalDeviceCatalog.manufacturer,
    })
    .from(participantDevices)
    .innerJoin(
      globalDeviceCatalog,
      eq(globalDeviceCatalog.id, participantDevices.globalDeviceCatalogId),
    )
    .where(
      and(
        inArray(participantDevices.participantId, participantIds),
        eq(participantDevices.authorizationStatus, 'authorized'),
        eq(participantDevices.needsReconsent, false),
      ),
    );
  const keys = new Set<string>();
  for (const connection of connections) {
    for (const metricKey of SEEDED_METRICS)
      keys.add(`${connection.participantId}|${connection.brand}|${metricKey}`);
  }
  return keys;
}

/** The metrics the seed writes. */
const SEEDED_METRICS = [
  'heart_rate',
  'steps',
  'sleep_duration',
  'systolic',
  'diastolic',
  'pulse',
  'egv',
  'weight',
];

/**
 * A whole day of 1-second heart rate, yesterday on the clock of the participant's Fitbit
 * account (else the site's): the clock the sync stores that account's samples with
 * (decision 0105), so the sync's backfill upserts its samples (every few seconds) onto the
 * seeded instants and the day stays 86,400 rows.
 */
function oneSecondDay(
  owner: { participantId: number; teamId: number },
  now: Date,
  siteOffset: number,
  zone: string | undefined,
  minuteHeartRate: (date: string) => ArrayLike<number> | undefined,
): ReadingInput[] {
  if (!zone) {
    const day = isoDay(new Date(now.getTime() + siteOffset * 60_000 - DAY_MS));
    return heartRateSeconds(
      owner,
      new Date(Date.parse(`${day}T00:00:00Z`) - siteOffset * 60_000),
      siteOffset,
    );
  }
  const yesterday = isoDay(new Date(Date.parse(`${civilDateIn(zone, now)}T00:00:00Z`) - DAY_MS));
  const midnight = civilToInstant(zone, `${yesterday}T00:00:00`)!;
  return heartRateSeconds(owner, midnight.at, midnight.offsetMinutes, minuteHeartRate(yesterday));
}
