import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import CircularProgress from '@mui/material/CircularProgress';
import TextField from '@mui/material/TextField';
import { TRIAL_USER_MESSAGES, type Trial } from '@trialpulse/shared';
import { textFieldProps } from '@/components/form/text-field-props';
import { addTrialUserFormSchema, type AddTrialUserFormInput } from '../api/add-trial-user';
import { useTeamUsers } from '../api/get-team-users';
import { FormDialog } from '@/components/ui/form-dialog';

type AddTrialUserDialogProps = {
  trial: Trial;
  submitting: boolean;
  onSubmit: (input: AddTrialUserFormInput) => void;
  onClose: () => void;
};

/** The Add User modal: read-only trial number and name, a select of team users by email. */
export function AddTrialUserDialog({
  trial,
  submitting,
  onSubmit,
  onClose,
}: AddTrialUserDialogProps) {
  const teamUsers = useTeamUsers(trial.trialId);
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<AddTrialUserFormInput>({
    resolver: zodResolver(addTrialUserFormSchema),
    defaultValues: { userEmail: '' },
  });

  return (
    <FormDialog
      title="Add User"
      onSubmit={handleSubmit(onSubmit)}
      onClose={onClose}
      submitting={submitting}
      submitDisabled={!teamUsers.isSuccess}
      testId="add-trial-user"
    >
      <TextField
        id="add-user-trial-number"
        label="Trial Number"
        value={trial.trialNumber}
        slotProps={{ htmlInput: { readOnly: true } }}
      />
      <TextField
        id="add-user-trial-name"
        label="Trial Name"
        value={trial.trialName}
        slotProps={{ htmlInput: { readOnly: true } }}
      />
      {teamUsers.isPending ? (
        <CircularProgress size={24} aria-label="Loading team users" />
      ) : teamUsers.isError ? (
        <Alert severity="error" data-testid="team-users-error">
          {TRIAL_USER_MESSAGES.notFound}
        </Alert>
      ) : (
        <TextField
          id="add-user-email"
          label="User Email"
          select
          slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
          {...textFieldProps(register('userEmail'), errors.userEmail)}
        >
          <option value="">Select a user</option>
          {teamUsers.data.map((user) => (
            <option key={user.id} value={user.email}>
              {user.email}
            </option>
          ))}
        </TextField>
      )}
    </FormDialog>
  );
}
