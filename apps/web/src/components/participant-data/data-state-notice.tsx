import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import {
  CONSENT_LINK_BRANDS,
  PATHS,
  type ConnectionSyncStatus,
  type DeviceBrandName,
  type Participant,
  type Trial,
} from '@trialpulse/shared';
import { useNotify } from '@/components/notifications';
import { userMessage } from '@/lib/api-client';
import { useSendConsentEmail } from '@/lib/api/consent-email';
import { useParticipantSyncStatus } from '@/lib/api/sync-status';
import { instantText } from '@/lib/day-range';
import { useCan } from '@/lib/session';

/** Texts of the data pages' empty and error states (issue 30, decision 0191). */
export const DATA_STATE_MESSAGES = {
  needsReconsent:
    "This participant's connection needs re-consent: send them the consent link from the participant page, then their data can be read again.",
  askForLink: 'Staff who may link devices (Sys_Admin, Admin, User) can send it.',
  consentLinkSent: 'Consent link sent.',
  noDataYet: (next: string | null) =>
    next ? `No data stored yet. The next sync runs at ${next}.` : 'No data stored yet.',
  backingOff: (next: string) =>
    `No data stored yet: the provider asked us to wait. The next sync runs at ${next}.`,
  syncFailed: (errorType: string, next: string) =>
    `No data stored yet: the last sync failed (${errorType}). The next sync runs at ${next}.`,
  notStored: (names: string) => `Not stored for this team: ${names}.`,
  enableSysAdmin:
    'Enable them for the team in the Device Metrics Manager, then tick them in Data Management.',
  enableAdmin:
    'Tick them in Data Management (Data Storage & Retention Settings); a metric missing there must first be enabled for the team by a system administrator.',
  enableAskAdmin: 'A team administrator can enable them in Data Management.',
} as const;

/**
 * Why a participant's data page or tiles are empty, and what to do (issue 30, decision 0191):
 * a connection that needs re-consent (with the button that emails a new consent link, for
 * the roles that may), no data stored yet (when the next sync runs), and the page's metrics
 * that the team does not store (where to enable them, for the role that can). Nothing when
 * the brand is not linked (the page says so itself) or all is well.
 */
export function DataStateNotice({
  participant,
  trial,
  brand,
  metrics = [],
}: {
  participant: Participant;
  trial?: Trial | null;
  brand: DeviceBrandName;
  /** The metrics the page shows, to name those the team does not store. */
  metrics?: ReadonlyArray<{ key: string; label: string }>;
}) {
  const status = useParticipantSyncStatus(participant.id);
  const connection = status.data?.find((candidate) => candidate.brand === brand);
  if (!connection) return null;
  const notStored = metrics.filter((metric) => !connection.enabledMetrics.includes(metric.key));
  const cause = causeOf(connection);
  if (!cause && notStored.length === 0) return null;
  return (
    <Stack spacing={1} data-testid={`data-state-${brand}`}>
      {cause === 'needsReconsent' ? (
        <ReconsentNotice participant={participant} trial={trial ?? null} brand={brand} />
      ) : cause ? (
        <Alert severity="info" data-testid={`data-state-${brand}-empty`}>
          {cause}
        </Alert>
      ) : null}
      {notStored.length > 0 && (
        <NotStoredNotice brand={brand} names={notStored.map((metric) => metric.label)} />
      )}
    </Stack>
  );
}

/** The cause of an empty page: re-consent, or no data yet with the next sync; null when data is stored. */
function causeOf(connection: ConnectionSyncStatus): 'needsReconsent' | string | null {
  if (connection.state === 'needs_reconsent') return 'needsReconsent';
  if (connection.rowsStored > 0) return null;
  const next = connection.nextSyncAt ? instantText(new Date(connection.nextSyncAt)) : null;
  if (connection.state === 'backing_off' && next) return DATA_STATE_MESSAGES.backingOff(next);
  if (connection.state === 'error' && next)
    return DATA_STATE_MESSAGES.syncFailed(connection.errorType ?? 'processing_error', next);
  return DATA_STATE_MESSAGES.noDataYet(next);
}

function ReconsentNotice({
  participant,
  trial,
  brand,
}: {
  participant: Participant;
  trial: Trial | null;
  brand: DeviceBrandName;
}) {
  const canSend = useCan('device.connect');
  const notify = useNotify();
  const send = useSendConsentEmail();
  const byEmail = (CONSENT_LINK_BRANDS as readonly string[]).includes(brand);
  return (
    <Alert
      severity="warning"
      data-testid={`data-state-${brand}-reconsent`}
      action={
        canSend && byEmail ? (
          <Button
            color="inherit"
            size="small"
            disabled={send.isPending}
            data-testid={`data-state-${brand}-send-link`}
            onClick={() =>
              void send
                .mutateAsync({ participantId: participant.id, brand: brand as 'Fitbit' | 'Omron' })
                .then(
                  (answer) =>
                    notify(answer.message || DATA_STATE_MESSAGES.consentLinkSent, 'success'),
                  (error: unknown) =>
                    notify(userMessage(error, 'Could not send the link.'), 'error'),
                )
            }
          >
            Send new consent link
          </Button>
        ) : undefined
      }
    >
      {DATA_STATE_MESSAGES.needsReconsent}{' '}
      {canSend ? (
        <Link
          component={RouterLink}
          to={'/Participant'}
          state={trial ? { participant, trial } : { participant }}
          color="inherit"
        >
          Open the participant page
        </Link>
      ) : (
        DATA_STATE_MESSAGES.askForLink
      )}
    </Alert>
  );
}

function NotStoredNotice({ brand, names }: { brand: DeviceBrandName; names: string[] }) {
  const sysAdmin = useCan('metrics.manage');
  const admin = useCan('retention.manage');
  return (
    <Alert severity="info" data-testid={`data-state-${brand}-not-stored`}>
      {DATA_STATE_MESSAGES.notStored(names.join(', '))}{' '}
      {sysAdmin
        ? DATA_STATE_MESSAGES.enableSysAdmin
        : admin
          ? DATA_STATE_MESSAGES.enableAdmin
          : DATA_STATE_MESSAGES.enableAskAdmin}
      {(sysAdmin || admin) && (
        <Stack component="span" direction="row" spacing={2} sx={{ display: 'flex', mt: 0.5 }}>
          {sysAdmin && (
            <Link component={RouterLink} to={PATHS.deviceMetricsManager} color="inherit">
              Device Metrics Manager
            </Link>
          )}
          <Link component={RouterLink} to={PATHS.teamDataRetention} color="inherit">
            Data Management
          </Link>
        </Stack>
      )}
    </Alert>
  );
}
