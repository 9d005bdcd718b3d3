import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { TRIAL_USER_MESSAGES, type Trial } from '@trialpulse/shared';
import { textFieldProps } from '@/components/form/text-field-props';
import { addTrialUserFormSchema, type AddTrialUserFormInput } from '../api/add-trial-user';
import { useTeamUsers } from '../api/get-team-users';

type AddTrialUserDialogProps = {
  trial: Trial;
  submitting: boolean;
  onSubmit: (input: AddTrialUserFormInput) => void;
  onClose: () => void;
};

const FORM_ID = 'add-trial-user-form';

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
    <Dialog
      open
      onClose={submitting ? undefined : onClose}
      fullWidth
      maxWidth="sm"
      data-testid="add-trial-user-dialog"
    >
      <DialogTitle>Add User</DialogTitle>
      <DialogContent>
        <Stack
          component="form"
          id={FORM_ID}
          noValidate
          spacing={2}
          sx={{ pt: 1 }}
          onSubmit={handleSubmit(onSubmit)}
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
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={submitting}>
          Cancel
        </Button>
        <Button
          type="submit"
          form={FORM_ID}
          variant="contained"
          disabled={submitting || !teamUsers.isSuccess}
          data-testid="add-trial-user-save"
        >
          Save
        </Button>
      </DialogActions>
    </Dialog>
  );
}
