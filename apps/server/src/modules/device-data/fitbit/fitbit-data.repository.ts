import { and, eq } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { participants } from '../../../db/schema';

/** The little the Fitbit data call reads itself: the participant's email, to check the URL's. */
export function createFitbitDataRepository(db: Db) {
  return {
    async emailOf(teamId: number, participantId: number): Promise<string | null> {
      const [row] = await db
        .select({ email: participants.email })
        .from(participants)
        .where(and(eq(participants.id, participantId), eq(participants.teamId, teamId)));
      return row?.email ?? null;
    },
  };
}

export type FitbitDataRepository = ReturnType<typeof createFitbitDataRepository>;
