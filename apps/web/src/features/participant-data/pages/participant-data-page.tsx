import { useState, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import Alert from '@mui/material/Alert';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import { GENERIC_ERROR_MESSAGE, type DeviceBrandName } from '@trialpulse/shared';
import { DataPageFrame, DataPageLink } from '@/components/participant-data';
import { userMessage } from '@/lib/api-client';
import { useParticipantOverview } from '../api/get-participant-overview';
import { StoredReadingsTable } from '../components/stored-readings-table';
import { BRAND_PATH } from '../utils/brands';

export type ParticipantDataPageProps = {
  /** The Dexcom CGM summary (dexcom-data feature), shown on the Dexcom tab. */
  cgmSummary?: (participantId: number) => ReactNode;
};

/**
 * /ParticipantDataPage (device-data §2): the participant's stored readings for Fitbit,
 * Omron and Dexcom, one tab per brand the team allows, paged on the server with CSV
 * export of the visible page. The Dexcom tab also holds the CGM summary (decision 0057).
 */
export function ParticipantDataPage({ cgmSummary }: ParticipantDataPageProps) {
  return (
    <DataPageFrame title="Participant data" testId="participant-data-page">
      {(participant, trial) => (
        <BrandTabs
          participantId={participant.id}
          participantCode={participant.participant_code}
          cgmSummary={cgmSummary}
          links={{
            Fitbit: (
              <DataPageLink to="/FitbitParticipantDataPage" participant={participant} trial={trial}>
                Fitbit data page
              </DataPageLink>
            ),
            Omron: (
              <DataPageLink
                to="/OmronParticipantDataPage"
                participant={participant}
                trial={trial}
                testId="open-omron-page"
              >
                Omron data page
              </DataPageLink>
            ),
            Dexcom: null,
          }}
        />
      )}
    </DataPageFrame>
  );
}

function BrandTabs({
  participantId,
  participantCode,
  cgmSummary,
  links,
}: {
  participantId: number;
  participantCode: string;
  cgmSummary?: (participantId: number) => ReactNode;
  links: Record<DeviceBrandName, ReactNode>;
}) {
  const overview = useParticipantOverview(participantId);
  // A link may name the brand to open on (View Participant Data on an errored entry).
  const requested = (useLocation().state as { brand?: DeviceBrandName } | null)?.brand ?? null;
  const [chosen, setChosen] = useState<DeviceBrandName | null>(requested);
  const [dexcomView, setDexcomView] = useState<'summary' | 'readings'>('summary');
  if (overview.isPending)
    return <CircularProgress size={28} aria-label="Loading participant data" />;
  if (overview.isError)
    return <Alert severity="error">{userMessage(overview.error, GENERIC_ERROR_MESSAGE)}</Alert>;
  const brands = overview.data.brands.map((entry) => entry.brand);
  if (brands.length === 0)
    return <Alert severity="info">No device brands are enabled for this team.</Alert>;
  const brand = chosen && brands.includes(chosen) ? chosen : brands[0]!;
  return (
    <Stack spacing={2}>
      <Tabs
        value={brand}
        onChange={(_event, next: DeviceBrandName) => setChosen(next)}
        aria-label="Device brand"
      >
        {brands.map((name) => (
          <Tab
            key={name}
            value={name}
            label={name}
            data-testid={`participant-data-tab-${BRAND_PATH[name]}`}
          />
        ))}
      </Tabs>
      {links[brand]}
      {brand === 'Dexcom' && cgmSummary && (
        <ToggleButtonGroup
          exclusive
          size="small"
          value={dexcomView}
          onChange={(_event, next: 'summary' | 'readings' | null) => next && setDexcomView(next)}
        >
          <ToggleButton value="summary" data-testid="dexcom-view-summary">
            CGM summary
          </ToggleButton>
          <ToggleButton value="readings" data-testid="dexcom-view-readings">
            Readings
          </ToggleButton>
        </ToggleButtonGroup>
      )}
      {brand === 'Dexcom' && cgmSummary && dexcomView === 'summary' ? (
        cgmSummary(participantId)
      ) : (
        <StoredReadingsTable
          key={brand}
          participantId={participantId}
          participantCode={participantCode}
          brand={brand}
        />
      )}
    </Stack>
  );
}
