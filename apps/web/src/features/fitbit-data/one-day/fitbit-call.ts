import { api } from '@/lib/api-client';

/**
 * `GET /api/getFitbitServerParticipantData/{participantId}/{email}/{path}` (device-data §7),
 * the legacy Fitbit shapes. Local to these folders until the `common/` hook of the data
 * page (helper fitbitweb) lands; then the lead replaces it with that one.
 * The email segment is the participant's email when the team shows it, else a
 * placeholder the server does not compare (decision 0061).
 */
export function getFitbitData(
  participant: { id: number; email?: string | null },
  resourcePath: string,
): Promise<unknown> {
  const email = participant.email?.trim() ? participant.email : 'hidden';
  return api.get<unknown>(
    `/getFitbitServerParticipantData/${participant.id}/${encodeURIComponent(email)}/${resourcePath}`,
  );
}

/** Query key shared by the views of these folders: one cache entry per participant and path. */
export const fitbitDataKey = (participantId: number, resourcePath: string) =>
  ['fitbit-data', participantId, resourcePath] as const;
