import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api-client';

/** What an invitation grants: the account's email, role and team. */
export const signupInvitationSchema = z.object({
  email: z.string().min(1),
  role: z.string().min(1),
  teamId: z.coerce.number().int(),
  teamName: z.string().catch(''),
});
export type SignupInvitation = z.infer<typeof signupInvitationSchema>;

/** `POST /api/userSignUpPermission/signupRequestValidation`: checks the emailed key. */
export async function validateSignupRequest(token: string): Promise<SignupInvitation> {
  const data = await api.post<unknown>('/userSignUpPermission/signupRequestValidation', { token });
  return signupInvitationSchema.parse(data);
}

export function useValidateSignupRequest(token: string | null) {
  return useQuery({
    queryKey: ['signup-request-validation', token],
    queryFn: () => validateSignupRequest(token ?? ''),
    enabled: Boolean(token),
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
  });
}
