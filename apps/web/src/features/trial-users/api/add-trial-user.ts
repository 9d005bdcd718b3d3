import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { addTrialUserInputSchema, type AddTrialUserInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { teamUsersQueryKey } from './get-team-users';
import { trialUsersQueryKey, type TrialUser } from './get-trial-users';

export { addTrialUserInputSchema, type AddTrialUserInput };

/** The Add User form: only the email is entered (the trial comes from the page). */
export const addTrialUserFormSchema = addTrialUserInputSchema.pick({ userEmail: true });
export type AddTrialUserFormInput = z.infer<typeof addTrialUserFormSchema>;

const addedUserSchema = z.object({ userId: z.number().int(), userEmail: z.string() });

export type AddTrialUserResult = {
  message?: string;
  /** The added user as the server describes them; `null` when the answer lacks it. */
  added: TrialUser | null;
};

/** `POST /api/trialUsers` {userEmail, trialId} (Sys_Admin, Admin). */
export async function addTrialUser(input: AddTrialUserInput): Promise<AddTrialUserResult> {
  const answer = await api.post<{ message?: string; data?: unknown } | undefined>(
    '/trialUsers',
    input,
  );
  const data = addedUserSchema.safeParse(answer?.data);
  return {
    message: answer?.message,
    added: data.success
      ? { id: data.data.userId, email: data.data.userEmail, isOwner: false }
      : null,
  };
}

/**
 * Adds the user to the local list on success (access spec §4: "on success the local list
 * updates"); without a usable answer the list is left alone and the page says so.
 */
export function useAddTrialUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: addTrialUser,
    onSuccess: ({ added }, { trialId }) => {
      if (added) {
        queryClient.setQueryData<TrialUser[]>(trialUsersQueryKey(trialId), (users = []) => [
          ...users.filter((user) => user.id !== added.id),
          added,
        ]);
      }
      void queryClient.invalidateQueries({ queryKey: teamUsersQueryKey(trialId) });
    },
  });
}
