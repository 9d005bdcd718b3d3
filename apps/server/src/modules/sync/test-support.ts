import type { Db } from '../../db/client';
import { participants, trials, users } from '../../db/schema';
import { createTeam } from '../../test/fixtures';
import { createReadingsRepository } from './readings.repository';
import { createReadingsService, type ReadingsService } from './readings.service';
import { createSyncRepository } from './sync.repository';

/** The readings service on a test database: tests store readings through the real write path. */
export function readingsServiceFor(db: Db, now?: () => Date): ReadingsService {
  return createReadingsService({
    readings: createReadingsRepository(db),
    sync: createSyncRepository(db),
    ...(now && { now }),
  });
}

let counter = 0;

/** A team, an owner, a trial and `count` participants, written directly (no API needed). */
export async function createParticipants(db: Db, count = 1): Promise<{ teamId: number; trialId: number; participantIds: number[] }> {
  const tag = `${process.pid}-${++counter}-${Date.now().toString(36)}`;
  const team = await createTeam(db);
  const [owner] = await db
    .insert(users)
    .values({ email: `owner-${tag}@example.test`, username: `owner-${tag}@example.test`, firstName: 'O', lastName: 'Wner' })
    .returning({ id: users.id });
  const [trial] = await db
    .insert(trials)
    .values({ teamId: team.id, trialNumber: `S-${tag}`, trialName: 'Sync fixture', trialCode: `S${counter}`, ownerUserId: owner!.id })
    .returning({ id: trials.id });
  const rows = await db
    .insert(participants)
    .values(
      Array.from({ length: count }, (_, index) => ({
        teamId: team.id,
        trialId: trial!.id,
        participantCode: `S${counter}-${String(index + 1).padStart(3, '0')}`,
        participantCodeSuffix: String(index + 1).padStart(3, '0'),
      })),
    )
    .returning({ id: participants.id });
  return { teamId: team.id, trialId: trial!.id, participantIds: rows.map((row) => row.id) };
}
