import { useQuery } from '@tanstack/react-query';
import { portalEnrolmentsResponseSchema, type PortalEnrolment } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export type { PortalEnrolment };

export const myEnrolmentsQueryKey = ['participant-portal', 'enrolments'] as const;

/**
 * `GET /api/Participants/me/enrolments` (participant accounts only): the signed-in
 * participant's enrolments with each allowed brand's connection. A 401 means "not signed
 * in as a participant" here, not "staff session over".
 */
export async function getMyEnrolments(): Promise<PortalEnrolment[]> {
  const answer = await api.get<unknown>('/Participants/me/enrolments', {
    ignoreUnauthorized: true,
  });
  return portalEnrolmentsResponseSchema.parse(answer).enrolments;
}

/** Also tells the login page whether a participant is already signed in. */
export function useMyEnrolments() {
  return useQuery({
    queryKey: myEnrolmentsQueryKey,
    queryFn: getMyEnrolments,
    retry: false,
  });
}
