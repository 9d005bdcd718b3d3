import { useCallback, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import HomeOutlined from '@mui/icons-material/HomeOutlined';
import { PATHS, TRIAL_USER_MESSAGES, trialSchema, type Trial } from '@trialpulse/shared';
import { STORAGE_KEYS, useOpenedRow } from '@/components/data-table';
import { useNotify } from '@/components/notifications';
import { userMessage } from '@/lib/api-client';
import { useAddTrialUser, type AddTrialUserFormInput } from '../api/add-trial-user';
import { useDeleteTrialUser } from '../api/delete-trial-user';
import { useTrialUsers, type TrialUser } from '../api/get-trial-users';
import { AddTrialUserDialog } from '../components/add-trial-user-dialog';
import { DeleteTrialUserDialog } from '../components/delete-trial-user-dialog';
import { TrialUsersTable } from '../components/trial-users-table';

type Modal = { kind: 'none' } | { kind: 'addUser' } | { kind: 'deleteUser'; user: TrialUser };
type Banner = { severity: 'error' | 'warning'; text: string };

/**
 * /TrialUsers (Sys_Admin, Admin): the users of the trial opened from /TrialPage, with the
 * Add User and Delete User? modals. Failures show in a banner with a close button, in the
 * words of access spec §8.
 */
export function TrialUsersPage() {
  const trial = useOpenedRow(trialSchema, {
    stateKey: 'trial',
    storageKey: STORAGE_KEYS.currentTrial,
  });

  if (!trial) {
    return (
      <Stack spacing={2} sx={{ alignItems: 'flex-start' }} data-testid="trial-users-page">
        <Alert severity="error" data-testid="trial-users-error">
          {TRIAL_USER_MESSAGES.notFound}
        </Alert>
        <Button
          component={RouterLink}
          to={PATHS.home}
          variant="contained"
          startIcon={<HomeOutlined />}
          data-testid="go-home"
        >
          Go to the dashboard
        </Button>
      </Stack>
    );
  }
  return <TrialUsers trial={trial} />;
}

function TrialUsers({ trial }: { trial: Trial }) {
  const notify = useNotify();
  const users = useTrialUsers(trial.trialId);
  const add = useAddTrialUser();
  const remove = useDeleteTrialUser();
  const [modal, setModal] = useState<Modal>({ kind: 'none' });
  const [banner, setBanner] = useState<Banner | null>(null);
  const [loadErrorClosed, setLoadErrorClosed] = useState(false);
  const close = () => setModal({ kind: 'none' });
  const openAdd = useCallback(() => setModal({ kind: 'addUser' }), []);
  const openDelete = useCallback((user: TrialUser) => setModal({ kind: 'deleteUser', user }), []);

  const handleAdd = async ({ userEmail }: AddTrialUserFormInput) => {
    setBanner(null);
    try {
      const answer = await add.mutateAsync({ userEmail, trialId: trial.trialId });
      if (answer.added) notify(answer.message || 'User added to the trial.', 'success');
      else setBanner({ severity: 'warning', text: TRIAL_USER_MESSAGES.addedDisplayWrong });
    } catch (failure) {
      const shown = userMessage(failure, '');
      setBanner({
        severity: 'error',
        text: shown ? `Error:  ${shown}!` : TRIAL_USER_MESSAGES.addFailed,
      });
    }
    close();
  };

  const handleDelete = async (user: TrialUser) => {
    setBanner(null);
    try {
      const answer = await remove.mutateAsync({
        userId: user.id,
        userEmail: user.email,
        trialId: trial.trialId,
      });
      notify(answer?.message || 'User removed from the trial.', 'success');
    } catch (failure) {
      setBanner({
        severity: 'error',
        text: userMessage(failure, TRIAL_USER_MESSAGES.deleteFailed),
      });
    }
    close();
  };

  const loadFailed = users.isError;

  return (
    <Stack spacing={3} data-testid="trial-users-page">
      <div>
        <Typography variant="h1" component="h1">
          Trial Users
        </Typography>
        <Typography color="text.secondary" sx={{ mt: 0.5 }} data-testid="trial-users-trial">
          Trial: #{trial.trialNumber} - {trial.trialName}
        </Typography>
      </div>
      {(banner || (loadFailed && !loadErrorClosed)) && (
        <Alert
          severity={banner?.severity ?? 'error'}
          onClose={() => {
            setBanner(null);
            setLoadErrorClosed(true);
          }}
          data-testid="trial-users-error"
        >
          {banner?.text ?? TRIAL_USER_MESSAGES.notFound}
        </Alert>
      )}
      {!loadFailed && (
        <TrialUsersTable
          users={users.data ?? []}
          isLoading={users.isPending}
          onAdd={openAdd}
          onDelete={openDelete}
        />
      )}
      {modal.kind === 'addUser' && (
        <AddTrialUserDialog
          trial={trial}
          submitting={add.isPending}
          onSubmit={(input) => void handleAdd(input)}
          onClose={close}
        />
      )}
      {modal.kind === 'deleteUser' && (
        <DeleteTrialUserDialog
          user={modal.user}
          submitting={remove.isPending}
          onConfirm={() => void handleDelete(modal.user)}
          onClose={close}
        />
      )}
    </Stack>
  );
}
