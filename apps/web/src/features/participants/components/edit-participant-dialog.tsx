import { useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQueryClient } from '@tanstack/react-query';
import Typography from '@mui/material/Typography';
import { PARTICIPANT_SUCCESS } from '@trialpulse/shared';
import { textFieldProps } from '@/components/form/text-field-props';
import { useNotify } from '@/components/notifications';
import { useChangeParticipantCode } from '../api/change-participant-code';
import { participantsQueryKey, type Participant } from '../api/get-participants';
import { participantQueryKey } from '@/lib/api/participant';
import {
  editParticipantFormSchema,
  useUpdateParticipant,
  type EditParticipantFormInput,
  type EditParticipantFormOutput,
} from '../api/update-participant';
import { codeChangeErrorMessage, editParticipantErrorMessage } from '../utils/participant-errors';
import { useVisibleParticipantFields } from '../utils/visible-fields';
import { PhiBanner } from './phi-banner';
import { ParticipantFields, isSuffixAllowed, upperCased } from './participant-fields';
import { FormDialog } from '@/components/ui/form-dialog';

type EditParticipantDialogProps = {
  participant: Participant;
  trialId: number;
  onClose: () => void;
};

/**
 * The Edit Participant modal (access spec §4): saves the fields with PUT /participant and
 * then, only when the suffix changed, the code with PATCH …/code. A failed code change
 * keeps the dialog open with the spec's text; the participant keeps the old code.
 */
export function EditParticipantDialog({
  participant,
  trialId,
  onClose,
}: EditParticipantDialogProps) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const update = useUpdateParticipant();
  const changeCode = useChangeParticipantCode();
  const { showEmail, showNotes } = useVisibleParticipantFields();
  const [error, setError] = useState<string | null>(null);
  const [code, setCode] = useState({
    full: participant.participant_code,
    suffix: participant.participant_code_suffix,
  });
  const prefix = participant.participant_code.slice(
    0,
    participant.participant_code.length - participant.participant_code_suffix.length - 1,
  );

  const {
    register,
    handleSubmit,
    control,
    formState: { errors },
  } = useForm<EditParticipantFormInput, unknown, EditParticipantFormOutput>({
    resolver: zodResolver(editParticipantFormSchema),
    defaultValues: {
      codeSuffix: participant.participant_code_suffix,
      email: participant.email ?? '',
      gender: participant.gender,
      age: participant.age === null ? '' : String(participant.age),
      notes: participant.notes ?? '',
    },
  });
  const suffix = useWatch({ control, name: 'codeSuffix' });
  const notes = useWatch({ control, name: 'notes' }) ?? '';
  const suffixInvalid = !isSuffixAllowed(suffix);
  const submitting = update.isPending || changeCode.isPending;

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: participantsQueryKey(trialId) });
    void queryClient.invalidateQueries({ queryKey: participantQueryKey(participant.id) });
  };

  const submit = async ({ codeSuffix, ...fields }: EditParticipantFormOutput) => {
    setError(null);
    let answer: { message?: string } | undefined;
    try {
      answer = await update.mutateAsync({
        id: participant.id,
        ...fields,
        // A blank hidden field means "not shown", never "clear it".
        email: !showEmail && fields.email === null ? undefined : fields.email,
        notes: !showNotes && fields.notes === null ? undefined : fields.notes,
      });
    } catch (failure) {
      setError(editParticipantErrorMessage(failure));
      return;
    }
    if (codeSuffix !== code.suffix) {
      try {
        const full = await changeCode.mutateAsync({
          trialId,
          participantId: participant.id,
          suffix: codeSuffix,
        });
        setCode({ full, suffix: codeSuffix });
      } catch (failure) {
        refresh();
        setError(codeChangeErrorMessage(failure));
        return;
      }
    }
    refresh();
    notify(answer?.message || PARTICIPANT_SUCCESS.updated, 'success');
    onClose();
  };

  return (
    <FormDialog
      title="Edit Participant"
      onSubmit={handleSubmit(submit)}
      onClose={onClose}
      submitting={submitting}
      submitDisabled={suffixInvalid}
      error={error}
      testId="edit-participant"
    >
      <PhiBanner />
      <Typography data-testid="edit-participant-current-code">
        Current code: <strong>{code.full}</strong>
      </Typography>
      <ParticipantFields
        idPrefix="edit-participant"
        codePrefix={prefix}
        suffix={textFieldProps(upperCased(register('codeSuffix')), errors.codeSuffix)}
        suffixInvalid={suffixInvalid}
        email={textFieldProps(register('email'), errors.email)}
        gender={textFieldProps(register('gender'), errors.gender)}
        age={textFieldProps(register('age'), errors.age)}
        notes={textFieldProps(register('notes'), errors.notes)}
        notesLength={notes.length}
        showEmail={showEmail}
        showNotes={showNotes}
      />
    </FormDialog>
  );
}
