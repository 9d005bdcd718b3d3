import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  addParticipantInputSchema,
  addParticipantResponseSchema,
  participantGenderSchema,
  type AddParticipantInput,
  type AddParticipantResponse,
} from '@trialpulse/shared';
import { z } from 'zod';
import { api } from '@/lib/api-client';
import { participantsQueryKey } from './get-participants';

/**
 * The add form: the API input without the trial (taken from the page), with gender read
 * from a select whose empty choice fails with the spec's "Gender is required".
 */
export const addParticipantFormSchema = addParticipantInputSchema
  .omit({ trialId: true })
  .extend({ gender: z.string().pipe(participantGenderSchema) });
export type AddParticipantFormInput = z.input<typeof addParticipantFormSchema>;
export type AddParticipantFormOutput = z.output<typeof addParticipantFormSchema>;

/**
 * `POST /api/trialParticipants` (Sys_Admin, Admin, User). An empty suffix lets the server
 * assign the next free one; the answer names the code given.
 */
export async function addParticipant(input: AddParticipantInput): Promise<AddParticipantResponse> {
  return addParticipantResponseSchema.parse(await api.post<unknown>('/trialParticipants', input));
}

export function useAddParticipant() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: addParticipant,
    onSuccess: (_answer, input) =>
      queryClient.invalidateQueries({ queryKey: participantsQueryKey(input.trialId) }),
  });
}
