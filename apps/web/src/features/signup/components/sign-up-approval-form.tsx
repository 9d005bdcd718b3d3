import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import type { z } from 'zod';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { APPROVABLE_ROLES } from '@trialpulse/shared';
import { textFieldProps } from '@/components/form/text-field-props';
import { SubmitButton } from '@/components/ui/submit-button';
import { approveSignUpInputSchema, type ApproveSignUpInput } from '../api/approve-sign-up';
import type { TeamOption } from '../api/get-teams';

type ApprovalFormValues = z.input<typeof approveSignUpInputSchema>;

type SignUpApprovalFormProps = {
  teams: TeamOption[];
  onSubmit: (input: ApproveSignUpInput) => Promise<boolean>;
  error: string | null;
  success: string | null;
  submitting: boolean;
};

export function SignUpApprovalForm({
  teams,
  onSubmit,
  error,
  success,
  submitting,
}: SignUpApprovalFormProps) {
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm<ApprovalFormValues, unknown, ApproveSignUpInput>({
    resolver: zodResolver(approveSignUpInputSchema),
    defaultValues: { email: '', teamId: '' },
  });

  const submit = async (input: ApproveSignUpInput) => {
    if (await onSubmit(input)) reset();
  };

  return (
    <Stack
      component="form"
      noValidate
      spacing={2.5}
      aria-label="Sign-up approval"
      data-testid="approval-form"
      onSubmit={handleSubmit(submit)}
    >
      {error && (
        <Alert severity="error" data-testid="approval-error">
          {error}
        </Alert>
      )}
      {success && (
        <Alert severity="success" data-testid="approval-success">
          {success}
        </Alert>
      )}
      <TextField
        id="approval-email"
        label="Email"
        type="email"
        autoComplete="off"
        {...textFieldProps(register('email'), errors.email)}
      />
      <TextField
        id="approval-role"
        label="Role"
        select
        slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
        {...textFieldProps(register('role'), errors.role)}
      >
        <option value="">Select a role</option>
        {APPROVABLE_ROLES.map((role) => (
          <option key={role} value={role}>
            {role}
          </option>
        ))}
      </TextField>
      <TextField
        id="approval-team"
        label="Team"
        select
        slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
        {...textFieldProps(register('teamId'), errors.teamId)}
      >
        <option value="">Select a team</option>
        {teams.map((team) => (
          <option key={team.team_id} value={team.team_id}>
            {team.team_name}
          </option>
        ))}
      </TextField>
      <SubmitButton submitting={submitting} testId="approval-submit">
        Approve Sign-up
      </SubmitButton>
    </Stack>
  );
}
