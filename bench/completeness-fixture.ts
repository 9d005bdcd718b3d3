import { sql } from 'drizzle-orm';
import type { Db } from '../apps/server/src/db/client';
import { participants, trials } from '../apps/server/src/db/schema';

/**
 * A trial with `participants` participants and `days` days of minute heart rate ending
 * yesterday (UTC), written in SQL (generate_series): `wearMinutes` consecutive minutes
 * from 07:00 each day; daily steps for everyone and 5-minute CGM readings for every fourth
 * participant, so the aggregate sees every metric it counts.
 */
export async function createParticipantsBulk(
  db: Db,
  options: {
    teamId: number;
    ownerUserId: number;
    participants: number;
    days: number;
    wearMinutes: number;
  },
): Promise<{ trialId: number; participantIds: number[]; from: string; to: string }> {
  const [trial] = await db
    .insert(trials)
    .values({
      teamId: options.teamId,
      trialNumber: `BENCH-${Date.now()}`,
      trialName: 'Completeness bench',
      trialCode: 'BENCH',
      ownerUserId: options.ownerUserId,
    })
    .returning({ id: trials.id });
  const rows = await db
    .insert(participants)
    .values(
      Array.from({ length: options.participants }, (_, index) => ({
        teamId: options.teamId,
        trialId: trial!.id,
        participantCode: `BENCH-${String(index + 1).padStart(4, '0')}`,
        participantCodeSuffix: String(index + 1).padStart(4, '0'),
      })),
    )
    .returning({ id: participants.id });
  const participantIds = rows.map((row) => row.id);
  const today = new Date();
  const to = new Date(
    Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - 1),
  );
  const from = new Date(to.getTime() - (options.days - 1) * 86_400_000);
  const iso = (at: Date) => at.toISOString().slice(0, 10);
  await db.execute(
    sql`select device_readings_ensure_partitions(${from.toISOString()}::timestamptz, ${new Date(to.getTime() + 2 * 86_400_000).toISOString()}::timestamptz)`,
  );
  for (const [index, participantId] of participantIds.entries()) {
    await db.execute(sql`
      insert into device_readings (participant_id, team_id, metric_key, recorded_at, brand, utc_offset_minutes, value, upstream)
      select ${participantId}, ${options.teamId}, 'heart_rate', day + interval '7 hours' + minute * interval '1 minute', 'Fitbit', 0, 60 + (minute % 40), 'google-health'
        from generate_series(${iso(from)}::timestamptz, ${iso(to)}::timestamptz, interval '1 day') as day,
             generate_series(0, ${options.wearMinutes - 1}) as minute`);
    await db.execute(sql`
      insert into device_readings (participant_id, team_id, metric_key, recorded_at, brand, utc_offset_minutes, value, upstream)
      select ${participantId}, ${options.teamId}, 'steps', day, 'Fitbit', null, 7000, 'google-health'
        from generate_series(${iso(from)}::timestamptz, ${iso(to)}::timestamptz, interval '1 day') as day`);
    if (index % 4 === 0) {
      await db.execute(sql`
        insert into device_readings (participant_id, team_id, metric_key, recorded_at, brand, utc_offset_minutes, value, upstream)
        select ${participantId}, ${options.teamId}, 'egv', at, 'Dexcom', 0, 110, 'dexcom'
          from generate_series(${iso(from)}::timestamptz, ${iso(to)}::timestamptz + interval '23 hours 55 minutes', interval '5 minutes') as at`);
    }
  }
  await db.execute(sql`analyze device_readings`);
  return { trialId: trial!.id, participantIds, from: iso(from), to: iso(to) };
}
