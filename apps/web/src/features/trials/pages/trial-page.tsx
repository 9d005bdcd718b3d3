import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import GroupOutlined from '@mui/icons-material/GroupOutlined';
import HomeOutlined from '@mui/icons-material/HomeOutlined';
import InsightsOutlined from '@mui/icons-material/InsightsOutlined';
import { PATHS, trialSchema, type Trial } from '@trialpulse/shared';
import { STORAGE_KEYS, useOpenedRow } from '@/components/data-table';
import { useCan } from '@/lib/session';

/**
 * /TrialPage: the header of the trial opened from the trials table (navigation state, or
 * local storage after a reload) and, for Sys_Admin and Admin, the link to its users. The
 * participants table belongs to the participants feature, so the router composes it in
 * through `participantsTable` (features never import each other); without it a
 * placeholder stands in.
 */
export function TrialPage({
  participantsTable,
}: {
  participantsTable?: (trial: Trial) => ReactNode;
} = {}) {
  const trial = useOpenedRow(trialSchema, {
    stateKey: 'trial',
    storageKey: STORAGE_KEYS.currentTrial,
  });
  const canManageUsers = useCan('trialUsers.manage');

  if (!trial) {
    return (
      <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 }, maxWidth: 640, mx: 'auto' }}>
        <Stack spacing={2} sx={{ alignItems: 'flex-start' }} data-testid="trial-missing">
          <Typography>Please select a trial from the dashboard.</Typography>
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
      </Paper>
    );
  }

  return (
    <Stack spacing={3} data-testid="trial-page">
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={2}
        sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' } }}
      >
        <Typography variant="h1" component="h1" data-testid="trial-title">
          Trial: #{trial.trialNumber} - {trial.trialName}
        </Typography>
        <Stack
          direction="row"
          useFlexGap
          sx={{
            flexWrap: 'wrap',
            columnGap: 3,
            rowGap: 1,
            alignItems: 'center',
            flexShrink: 0,
            '& a': { whiteSpace: 'nowrap' },
          }}
        >
          <Link
            component={RouterLink}
            to={PATHS.trialCompleteness}
            state={{ trial }}
            data-testid="trial-completeness-link"
            sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5 }}
          >
            <InsightsOutlined fontSize="small" />
            Data completeness
          </Link>
          {canManageUsers && (
            <Link
              component={RouterLink}
              to={PATHS.trialUsers}
              state={{ trial }}
              data-testid="manage-trial-users-link"
              sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5 }}
            >
              <GroupOutlined fontSize="small" />
              Manage Users for this trial
            </Link>
          )}
        </Stack>
      </Stack>
      {trial.trialNotes && <Typography color="text.secondary">{trial.trialNotes}</Typography>}
      {participantsTable ? (
        participantsTable(trial)
      ) : (
        <Paper
          variant="outlined"
          sx={{ p: { xs: 3, sm: 4 } }}
          data-testid="trial-participants-placeholder"
        >
          <Typography color="text.secondary">
            The participants of this trial will be listed here soon.
          </Typography>
        </Paper>
      )}
    </Stack>
  );
}
