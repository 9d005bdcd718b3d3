import { useMutation } from '@tanstack/react-query';
import {
  CODE_SUFFIX_MESSAGE,
  CODE_SUFFIX_PATTERN,
  participantGenderSchema,
  updateParticipantInputSchema,
  type UpdateParticipantInput,
} from '@trialpulse/shared';
import { z } from 'zod';
import { api } from '@/lib/api-client';

/**
 * The edit form: the API input without the id, plus the code suffix, which the dialog
 * sends separately (PATCH …/code) and which is required here (a code always has one).
 */
export const editParticipantFormSchema = updateParticipantInputSchema.omit({ id: true }).extend({
  gender: z.string().pipe(participantGenderSchema),
  codeSuffix: z.string().trim().toUpperCase().regex(CODE_SUFFIX_PATTERN, CODE_SUFFIX_MESSAGE),
});
export type EditParticipantFormInput = z.input<typeof editParticipantFormSchema>;
export type EditParticipantFormOutput = z.output<typeof editParticipantFormSchema>;

/**
 * `PUT /api/participant`: email, gender, age, notes (Sys_Admin, Admin, User). Omitted email
 * or notes are kept; the code is changed by `changeParticipantCode`.
 */
export function updateParticipant(input: UpdateParticipantInput): Promise<{ message?: string }> {
  return api.put<{ message?: string }>('/participant', input);
}

/** The caller refreshes the list once the whole edit (fields, then code) is done. */
export function useUpdateParticipant() {
  return useMutation({ mutationFn: updateParticipant });
}
