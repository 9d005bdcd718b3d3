import {
  isAuthResponseSchema,
  type DeviceBrandName,
  type IsAuthResponse,
} from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { brandPath } from '../utils/paths';

/**
 * `GET /api/{fitbit|omron|dexcom}IsParticipantAuth/{participantId}`: whether the
 * participant has authorised the brand (message 'found'), with the connection's status and
 * upstream. Throws `ApiError` for a failed call and `ZodError` for an answer of the wrong
 * shape.
 */
export async function getIsParticipantAuth(
  brand: DeviceBrandName,
  participantId: number,
  signal?: AbortSignal,
): Promise<IsAuthResponse> {
  const answer = await api.get<unknown>(`/${brandPath(brand)}IsParticipantAuth/${participantId}`, {
    signal,
  });
  return isAuthResponseSchema.parse(answer);
}
