import { Link as RouterLink, useSearchParams } from 'react-router';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import HomeOutlined from '@mui/icons-material/HomeOutlined';
import {
  DEVICE_MESSAGES,
  participantSchema,
  trialSchema,
  type DeviceBrandName,
  type Participant,
  type Trial,
} from '@trialpulse/shared';
import { STORAGE_KEYS, useOpenedRow } from '@/components/data-table';
import { useParticipant } from '@/lib/api/participant';
import { BusyStatus } from '../components/busy-status';
import { StaffConsentActions } from '../components/staff-consent-actions';
import { DEVICE_CONSENT_PATHS } from '../utils/paths';

/** /FitbitParticipantConsent (Sys_Admin, Admin, User): authorise now or email a link. */
export function FitbitParticipantConsentPage() {
  return <ParticipantConsentPage brand="Fitbit" canEmail />;
}

/** /DexcomParticipantConsent (Sys_Admin, Admin, User): Dexcom is linked in person only. */
export function DexcomParticipantConsentPage() {
  return <ParticipantConsentPage brand="Dexcom" canEmail={false} />;
}

/**
 * The participant comes as /Participant gets it — the row in navigation state
 * (`participant`, with its `trial`), or local storage after a reload — or as `?id=`,
 * which wins over a remembered row of another participant. The record is re-read from the
 * server, which also checks the caller may see it.
 */
export function ParticipantConsentPage({
  brand,
  canEmail,
}: {
  brand: DeviceBrandName;
  canEmail: boolean;
}) {
  const [searchParams] = useSearchParams();
  const opened = useOpenedRow(participantSchema, {
    stateKey: 'participant',
    storageKey: STORAGE_KEYS.currentParticipant,
  });
  const trial = useOpenedRow(trialSchema, {
    stateKey: 'trial',
    storageKey: STORAGE_KEYS.currentTrial,
  });
  const fromQuery = parseParticipantId(searchParams.get('id'));
  const participantId = fromQuery ?? opened?.id ?? null;

  if (participantId === null) return <ParticipantMissing />;
  return (
    <ParticipantConsent
      key={participantId}
      participantId={participantId}
      known={opened?.id === participantId ? opened : null}
      trial={trial}
      brand={brand}
      canEmail={canEmail}
    />
  );
}

function ParticipantConsent({
  participantId,
  known,
  ...rest
}: {
  participantId: number;
  known: Participant | null;
  trial: Trial | null;
  brand: DeviceBrandName;
  canEmail: boolean;
}) {
  const query = useParticipant(participantId, known);
  if (query.isError) return <ParticipantMissing />;
  if (!query.data) return <BusyStatus label="Loading the participant" />;
  return <StaffConsentActions participant={query.data} {...rest} />;
}

function ParticipantMissing() {
  return (
    <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 }, maxWidth: 640, mx: 'auto' }}>
      <Stack spacing={2} sx={{ alignItems: 'flex-start' }} data-testid="participant-missing">
        <Typography>{DEVICE_MESSAGES.participantNotFound}</Typography>
        <Button
          component={RouterLink}
          to={DEVICE_CONSENT_PATHS.home}
          variant="contained"
          startIcon={<HomeOutlined />}
        >
          Go to the dashboard
        </Button>
      </Stack>
    </Paper>
  );
}

/** A positive whole number from the query string, else `null`. */
function parseParticipantId(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value)) return null;
  const id = Number(value);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}
