import { useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import type { z } from 'zod';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { LIMITS, TRIAL_MESSAGES } from '@trialpulse/shared';
import { textFieldProps } from '@/components/form/text-field-props';
import { useNotify } from '@/components/notifications';
import { useSession } from '@/lib/session';
import { createTrialInputSchema, useCreateTrial, type CreateTrialInput } from '../api/create-trial';
import type { Trial } from '@/lib/api/trials';
import { useUpdateTrial } from '../api/update-trial';
import { trialErrorMessage } from '../utils/trial-error-message';
import { FormDialog } from '@/components/ui/form-dialog';

type TrialFormValues = z.input<typeof createTrialInputSchema>;

type TrialFormDialogProps = {
  /** The trial to edit; without one the dialog adds a new trial. */
  trial?: Trial;
  onClose: () => void;
};

/**
 * The New Trial and Edit Trial modals: Trial Number and Trial Name required, notes up to
 * 300 characters with a counter (access spec §5). Success toasts and closes; a failure
 * stays in the dialog as "Error: …".
 */
export function TrialFormDialog({ trial, onClose }: TrialFormDialogProps) {
  const editing = trial !== undefined;
  const { user } = useSession();
  const notify = useNotify();
  const create = useCreateTrial();
  const update = useUpdateTrial();
  const [error, setError] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    control,
    formState: { errors },
  } = useForm<TrialFormValues, unknown, CreateTrialInput>({
    resolver: zodResolver(createTrialInputSchema),
    defaultValues: {
      trialNumber: trial?.trialNumber ?? '',
      trialName: trial?.trialName ?? '',
      trialNotes: trial?.trialNotes ?? '',
    },
  });
  const notes = useWatch({ control, name: 'trialNotes' }) ?? '';
  const submitting = create.isPending || update.isPending;

  const submit = async (input: CreateTrialInput) => {
    setError(null);
    if (!user) {
      setError(`Error: ${TRIAL_MESSAGES.userInfoNotLoaded}`);
      return;
    }
    try {
      const answer = editing
        ? await update.mutateAsync({ trialId: trial.trialId, ...input })
        : await create.mutateAsync(input);
      notify(answer?.message || (editing ? 'Trial updated.' : 'Trial added.'), 'success');
      onClose();
    } catch (failure) {
      setError(
        trialErrorMessage(
          failure,
          editing ? TRIAL_MESSAGES.updateFailed : TRIAL_MESSAGES.addFailed,
        ),
      );
    }
  };

  return (
    <FormDialog
      title={editing ? 'Edit Trial' : 'New Trial'}
      onSubmit={handleSubmit(submit)}
      onClose={onClose}
      submitting={submitting}
      error={error}
      testId="trial-form"
    >
      <TextField
        id="trial-number"
        label="Trial Number"
        autoFocus
        autoComplete="off"
        {...textFieldProps(register('trialNumber'), errors.trialNumber)}
      />
      <TextField
        id="trial-name"
        label="Trial Name"
        autoComplete="off"
        {...textFieldProps(register('trialName'), errors.trialName)}
      />
      <div>
        <TextField
          id="trial-notes"
          label="Trial Notes"
          multiline
          minRows={3}
          fullWidth
          {...textFieldProps(register('trialNotes'), errors.trialNotes)}
        />
        <Typography
          variant="caption"
          color={notes.length > LIMITS.notesMaxLength ? 'error' : 'text.secondary'}
          component="p"
          sx={{ textAlign: 'right', mt: 0.5 }}
          data-testid="trial-notes-counter"
        >
          {notes.length}/{LIMITS.notesMaxLength}
        </Typography>
      </div>
    </FormDialog>
  );
}
