import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { participantMeSchema, type ParticipantMe } from '@trialpulse/shared';
import { z } from 'zod';
import { api } from '@/lib/api-client';
import { myEnrolmentsQueryKey } from './get-my-enrolments';

export const participantMeQueryKey = ['participant-portal', 'me'] as const;

const messageSchema = z.object({ message: z.string() });

/** `GET /api/Participants/me`: the account's address and whether it is confirmed. */
export async function getParticipantMe(): Promise<ParticipantMe> {
  return participantMeSchema.parse(
    await api.get<unknown>('/Participants/me', { ignoreUnauthorized: true }),
  );
}

export function useParticipantMe(enabled: boolean) {
  return useQuery({
    queryKey: participantMeQueryKey,
    queryFn: getParticipantMe,
    enabled,
    retry: false,
  });
}

/** `POST /api/Participants/verifyEmail` with the token of the emailed link (public). */
export async function verifyParticipantEmail(token: string): Promise<string> {
  return messageSchema.parse(await api.post<unknown>('/Participants/verifyEmail', { token }))
    .message;
}

/** `POST /api/Participants/me/verificationEmail`: a new confirmation link. */
export function useResendVerification() {
  return useMutation({
    mutationFn: async () =>
      messageSchema.parse(await api.post<unknown>('/Participants/me/verificationEmail', {}))
        .message,
  });
}

/** After a confirmation the portal asks again for the account and its studies. */
export function useRefreshPortal() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: participantMeQueryKey });
    void queryClient.invalidateQueries({ queryKey: myEnrolmentsQueryKey });
  };
}
