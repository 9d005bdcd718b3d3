import { useNavigate } from 'react-router';
import Chip from '@mui/material/Chip';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { Participant } from '@trialpulse/shared';
import type { BrandDeviceStatus } from '../hooks/use-device-status-cycle';
import { CONNECTION_STATUS_LABELS } from '../utils/device-labels';
import { DEVICE_PATHS } from '../utils/paths';
import { useDeviceStatusContext } from './device-status-context';
import { DeviceEntry } from './device-entry';
import { LastDataBadge } from './last-data-badge';

/**
 * A participants-table cell: per allowed brand, the authorised devices with their battery,
 * "Needs re-consent", "Not authorized" (or "Revoked"), or the error entries of failed
 * checks — with View Participant Data for Sys_Admin. Until the first check answers, each
 * allowed brand is listed with a placeholder: the row then has about its final height, so
 * the rows below do not jump under the user's pointer when the statuses come in (a click
 * meant for one participant's Manage link must not land on another row).
 */
export function DeviceStatusCell({ participant }: { participant: Participant }) {
  const { cycle, trial, brands } = useDeviceStatusContext();
  const status = cycle.statuses[participant.id];
  const badge = <LastDataBadge trialId={trial.trialId} participantId={participant.id} />;
  if (!status) {
    return (
      <Stack spacing={0.75} data-testid={`pending-device-status-${participant.id}`}>
        {badge}
        {brands.map((brand) => (
          <Stack
            key={brand}
            direction="row"
            spacing={1}
            sx={{ alignItems: 'center', minHeight: 24 }}
          >
            <Typography variant="body2" sx={{ fontWeight: 600 }}>
              {brand}
            </Typography>
            <Skeleton variant="text" width={96} aria-label={`Checking ${brand}`} />
          </Stack>
        ))}
      </Stack>
    );
  }
  return (
    <Stack spacing={0.75}>
      {badge}
      {status.brands.map((brand) => (
        <BrandStatus key={brand.brand} participant={participant} status={brand} />
      ))}
    </Stack>
  );
}

function BrandStatus({
  participant,
  status,
}: {
  participant: Participant;
  status: BrandDeviceStatus;
}) {
  const navigate = useNavigate();
  const { trial, canViewErrorData } = useDeviceStatusContext();
  const testId = `device-status-${participant.id}-${status.brand}`;
  const viewData = canViewErrorData
    ? () =>
        void navigate(DEVICE_PATHS.participantData, {
          state: { participant, trial, brand: status.brand },
        })
    : undefined;
  const errors = status.devices.filter((entry) => entry.hasError);
  const devices = status.devices.filter((entry) => !entry.hasError);

  return (
    <Stack spacing={0.5} data-testid={testId}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <Typography variant="body2" sx={{ fontWeight: 600 }}>
          {status.brand}
        </Typography>
        {status.auth && <AuthSummary status={status} hasDevices={devices.length > 0} />}
      </Stack>
      {devices.map((entry, index) => (
        <DeviceEntry key={`device-${index}`} entry={entry} />
      ))}
      {errors.map((entry, index) => (
        <DeviceEntry key={`error-${index}`} entry={entry} onViewData={viewData} />
      ))}
    </Stack>
  );
}

function AuthSummary({ status, hasDevices }: { status: BrandDeviceStatus; hasDevices: boolean }) {
  const connection = status.auth?.status ?? 'not_authorized';
  if (connection === 'needs_reconsent') {
    return <Chip size="small" color="warning" label={CONNECTION_STATUS_LABELS.needs_reconsent} />;
  }
  if (status.auth?.message === 'found') {
    // Devices speak for themselves; Omron (no device list) shows the status alone.
    return hasDevices ? null : (
      <Chip
        size="small"
        color="success"
        variant="outlined"
        label={CONNECTION_STATUS_LABELS.authorized}
      />
    );
  }
  return (
    <Typography variant="body2" color="text.secondary">
      {CONNECTION_STATUS_LABELS[connection]}
    </Typography>
  );
}
