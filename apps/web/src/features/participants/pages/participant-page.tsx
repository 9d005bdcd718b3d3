import { useEffect, useState, type ComponentType } from 'react';
import { Link as RouterLink, useNavigate } from 'react-router';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import CircularProgress from '@mui/material/CircularProgress';
import Grid from '@mui/material/Grid';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import {
  PARTICIPANT_MESSAGES,
  participantSchema,
  trialSchema,
  type DeviceBrandName,
  type Participant,
  type Trial,
} from '@trialpulse/shared';
import { STORAGE_KEYS, useOpenedRow } from '@/components/data-table';
import { useCan, useSession } from '@/lib/session';
import { useTeamAllowedDevices } from '@/lib/api/team-allowed-devices';
import { useParticipant } from '@/lib/api/participant';
import { DeleteParticipantDialog } from '../components/delete-participant-dialog';
import { MissingRecord } from '../components/missing-record';
import { PARTICIPANT_PATHS } from '../utils/paths';
import { useVisibleParticipantFields } from '../utils/visible-fields';

/** Devices section text without a `deviceSection` (no device feature composed in). */
export const DEVICE_NOT_AUTHORISED = 'Not authorized';

/**
 * The body of one brand's device section (status, devices, refresh, revoke), filled by
 * the devices feature and composed in by the route. `onRevoked` returns to the trial page.
 */
export type DeviceSectionSlot = ComponentType<{
  participant: Participant;
  trial: Trial | null;
  brand: DeviceBrandName;
  onRevoked: () => void;
}>;

type ParticipantPageProps = { deviceSection?: DeviceSectionSlot };

/**
 * /Participant (Sys_Admin, Admin, User): the participant opened from a participants table
 * (navigation state, or local storage after a reload), re-read from the server. Shows ID,
 * code, email (when the team shows emails), delete, and one section per brand the team
 * allows (`deviceSection`). Ctrl+Shift+Q opens /ParticipantRaw for Sys_Admin only
 * (access spec §2).
 */
export function ParticipantPage({ deviceSection }: ParticipantPageProps = {}) {
  const participant = useOpenedRow(participantSchema, {
    stateKey: 'participant',
    storageKey: STORAGE_KEYS.currentParticipant,
  });
  const trial = useOpenedRow(trialSchema, {
    stateKey: 'trial',
    storageKey: STORAGE_KEYS.currentTrial,
  });
  if (!participant) {
    return <MissingRecord message={PARTICIPANT_MESSAGES.notFound} testId="participant-missing" />;
  }
  return <ParticipantDetails known={participant} trial={trial} DeviceSection={deviceSection} />;
}

function ParticipantDetails({
  known,
  trial,
  DeviceSection,
}: {
  known: Participant;
  trial: Trial | null;
  DeviceSection?: DeviceSectionSlot;
}) {
  const navigate = useNavigate();
  const { user } = useSession();
  const { showEmail } = useVisibleParticipantFields();
  const query = useParticipant(known.id, known);
  const devices = useTeamAllowedDevices(user?.teamId);
  const [deleting, setDeleting] = useState(false);
  const canOpenRaw = useCan('participant.viewRaw');
  const participant = query.data ?? known;

  useEffect(() => {
    if (!canOpenRaw) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.ctrlKey && event.shiftKey && event.code === 'KeyQ') {
        event.preventDefault();
        void navigate(PARTICIPANT_PATHS.participantRaw, { state: { participant, trial } });
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [canOpenRaw, navigate, participant, trial]);

  if (query.isError) {
    return <MissingRecord message={PARTICIPANT_MESSAGES.notFound} testId="participant-missing" />;
  }

  const backToTrial = () =>
    void navigate(trial ? PARTICIPANT_PATHS.trialPage : '/', trial ? { state: { trial } } : {});

  return (
    <Stack spacing={3} data-testid="participant-page">
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={2}
        sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' } }}
      >
        <div>
          <Typography variant="h1" component="h1">
            Participant
          </Typography>
          {trial && (
            <Link
              component={RouterLink}
              to={PARTICIPANT_PATHS.trialPage}
              state={{ trial }}
              data-testid="participant-trial-link"
            >
              Trial: #{trial.trialNumber} - {trial.trialName}
            </Link>
          )}
        </div>
        <Button
          color="error"
          variant="outlined"
          startIcon={<DeleteOutlined />}
          onClick={() => setDeleting(true)}
          data-testid="participant-delete-button"
        >
          Delete Participant
        </Button>
      </Stack>
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
        <Stack spacing={1}>
          <Typography>
            ID: <strong data-testid="participant-id">{participant.id}</strong>
          </Typography>
          <Typography>
            Code: <strong data-testid="participant-code">{participant.participant_code}</strong>
          </Typography>
          {showEmail && (
            <Typography>
              Email: <strong data-testid="participant-email">{participant.email ?? ''}</strong>
            </Typography>
          )}
        </Stack>
      </Paper>
      <Stack spacing={2}>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'baseline', flexWrap: 'wrap' }}>
          <Typography variant="h2" component="h2">
            Devices
          </Typography>
          {/* The device data pages take the participant from the navigation state. */}
          <Link
            component={RouterLink}
            to={PARTICIPANT_PATHS.participantOverview}
            state={{ participant, trial }}
            data-testid="participant-overview-link"
          >
            Overview
          </Link>
          <Link
            component={RouterLink}
            to={PARTICIPANT_PATHS.participantData}
            state={{ participant, trial }}
            data-testid="participant-data-link"
          >
            Device data
          </Link>
          <Link
            component={RouterLink}
            to={PARTICIPANT_PATHS.fitbitParticipantData}
            state={{ participant, trial }}
            data-testid="participant-fitbit-data-link"
          >
            Fitbit data
          </Link>
          <Link
            component={RouterLink}
            to={PARTICIPANT_PATHS.participantReport}
            state={{ participant, trial }}
            data-testid="participant-report-link"
          >
            Print report
          </Link>
        </Stack>
        {devices.isPending && devices.fetchStatus !== 'idle' && <CircularProgress size={24} />}
        {devices.isError && (
          <Alert severity="error" data-testid="devices-error">
            Error loading devices.
          </Alert>
        )}
        <Grid container spacing={2}>
          {(devices.data ?? []).map(({ brand_name }) => (
            <Grid key={brand_name} size={{ xs: 12, md: 6, lg: 4 }}>
              <Card variant="outlined" data-testid={`device-section-${brand_name}`}>
                <CardContent>
                  <Typography variant="h3" component="h3">
                    {brand_name}
                  </Typography>
                  {DeviceSection ? (
                    <DeviceSection
                      participant={participant}
                      trial={trial}
                      brand={brand_name}
                      onRevoked={backToTrial}
                    />
                  ) : (
                    <Typography color="text.secondary">{DEVICE_NOT_AUTHORISED}</Typography>
                  )}
                </CardContent>
              </Card>
            </Grid>
          ))}
        </Grid>
      </Stack>
      {deleting && (
        <DeleteParticipantDialog
          participant={participant}
          trialId={participant.trialId}
          onClose={() => setDeleting(false)}
          onDeleted={backToTrial}
        />
      )}
    </Stack>
  );
}
