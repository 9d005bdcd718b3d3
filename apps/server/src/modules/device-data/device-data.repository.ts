import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { participants } from '../../db/schema';

/**
 * The little the device-data module reads itself: the participant's email, which the Fitbit
 * data call (`providers/fitbit/fitbit-data.service.ts`) checks against its URL's (decision 0061).
 */
export function createDeviceDataRepository(db: Db) {
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

export type DeviceDataRepository = ReturnType<typeof createDeviceDataRepository>;
