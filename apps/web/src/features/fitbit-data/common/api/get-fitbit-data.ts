import { useQuery } from '@tanstack/react-query';
import {
  FITBIT_DATA_MESSAGES,
  FITBIT_DATA_REASONS,
} from '@trialpulse/shared/device-data/fitbit-resource-path';
import { api, isApiError } from '@/lib/api-client';

/**
 * The `{email}` segment: the participant's email when the page shows one, otherwise a
 * placeholder the server does not compare (decision 0061).
 */
export const fitbitEmailSegment = (email: string | null | undefined) =>
  encodeURIComponent(email && email.includes('@') ? email : 'hidden');

export const fitbitDataQueryKey = (participantId: number, resourcePath: string) =>
  ['fitbit-data', participantId, resourcePath] as const;

/**
 * `GET /api/getFitbitServerParticipantData/{participantId}/{email}/{fitbitResourcePath}`
 * (device-data §7): the answer in the legacy Fitbit Web API's shape for that path (decision
 * 0060), unparsed: each view reads the shape its path asks for.
 */
export async function getFitbitData(
  participantId: number,
  email: string | null | undefined,
  resourcePath: string,
): Promise<unknown> {
  const path = resourcePath.replace(/^\/+/, '');
  return api.get<unknown>(
    `/getFitbitServerParticipantData/${participantId}/${fitbitEmailSegment(email)}/${path}`,
  );
}

/** One or more resource paths of one query, fetched together (active minutes asks three). */
export function useFitbitData(
  participantId: number,
  email: string | null | undefined,
  resourcePaths: readonly string[] | null,
) {
  return useQuery({
    queryKey: ['fitbit-data', participantId, resourcePaths] as const,
    queryFn: () =>
      Promise.all(resourcePaths!.map((path) => getFitbitData(participantId, email, path))),
    enabled: resourcePaths !== null && resourcePaths.length > 0,
    retry: false,
    staleTime: 60_000,
  });
}

/**
 * The text a Fitbit data error shows (device-data §8): the server's message when it is
 * meant for the user, and the spec's text for the failures whose 5xx message the server
 * hides (upstream failure, failed token refresh).
 */
export function fitbitErrorMessage(error: unknown): string {
  if (!isApiError(error)) return FITBIT_DATA_MESSAGES.requestFailed;
  if (error.reason === FITBIT_DATA_REASONS.noData) return FITBIT_DATA_MESSAGES.noData;
  if (error.reason === FITBIT_DATA_REASONS.rateLimited || error.status === 429) {
    return FITBIT_DATA_MESSAGES.tooManyRequests;
  }
  if (error.reason === 'REFRESH_FAILED') return FITBIT_DATA_MESSAGES.refreshFailed;
  if (error.reason === FITBIT_DATA_REASONS.upstreamFailed)
    return FITBIT_DATA_MESSAGES.couldNotGetData;
  if (error.body?.displayToUser && error.body.message.trim()) return error.body.message;
  if (error.status >= 500) return FITBIT_DATA_MESSAGES.couldNotGetData;
  return FITBIT_DATA_MESSAGES.requestFailed;
}

/** True when the error means "this range holds no data" (shown as information, not failure). */
export const isFitbitNoData = (error: unknown) =>
  isApiError(error) && error.reason === FITBIT_DATA_REASONS.noData;
