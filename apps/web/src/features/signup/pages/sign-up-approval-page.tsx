import { useState } from 'react';
import Alert from '@mui/material/Alert';
import CircularProgress from '@mui/material/CircularProgress';
import { APPROVAL_MESSAGES } from '@trialpulse/shared';
import { useNotify } from '@/components/notifications';
import { FormCard } from '@/components/ui/form-card';
import { userMessage } from '@/lib/api-client';
import { useApproveSignUp, type ApproveSignUpInput } from '../api/approve-sign-up';
import { useTeams } from '../api/get-teams';
import { SignUpApprovalForm } from '../components/sign-up-approval-form';

/** /SignUpApprovalPage (Sys_Admin): invites a new staff member to a team with a role. */
export function SignUpApprovalPage() {
  const teams = useTeams();
  const approve = useApproveSignUp();
  const notify = useNotify();
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState<string | null>(null);

  const handleSubmit = async (input: ApproveSignUpInput): Promise<boolean> => {
    setError(null);
    setSuccess(null);
    const teamName = teams.data?.find((team) => team.team_id === input.teamId)?.team_name;
    try {
      const answer = await approve.mutateAsync({ ...input, teamName });
      const message =
        answer?.message || `Sign-up approved: an invitation was sent to ${input.email}.`;
      setSuccess(message);
      notify(message, 'success');
      return true;
    } catch (failure) {
      setError(userMessage(failure, APPROVAL_MESSAGES.failed));
      return false;
    }
  };

  return (
    <FormCard
      title="Sign-up approval"
      subtitle="The person receives an email with a single-use link to create their account."
      testId="approval-page"
    >
      {teams.isPending ? (
        <CircularProgress aria-label="Loading teams" sx={{ alignSelf: 'center' }} />
      ) : teams.isError ? (
        <Alert severity="error" data-testid="approval-teams-error">
          {userMessage(teams.error, 'Error: the teams could not be loaded.')}
        </Alert>
      ) : (
        <SignUpApprovalForm
          teams={teams.data}
          onSubmit={handleSubmit}
          error={error}
          success={success}
          submitting={approve.isPending}
        />
      )}
    </FormCard>
  );
}
