import type { ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import CircularProgress from '@mui/material/CircularProgress';
import Grid from '@mui/material/Grid';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { GENERIC_ERROR_MESSAGE, type Participant, type Trial } from '@trialpulse/shared';
import { DEVICE_DATA_MESSAGES } from '@trialpulse/shared/device-data/device-data.schemas';
import { DataPageFrame, DataPageLink, DataStateNotice } from '@/components/participant-data';
import { userMessage } from '@/lib/api-client';
import { useParticipantOverview } from '../api/get-participant-overview';
import { fitbitTileText } from '../utils/fitbit-tile-text';

/** The Fitbit tiles of the overview (device-data §2's overview tiles), from stored readings. */
const FITBIT_TILES = [
  ['steps', 'Steps'],
  ['distance', 'Distance'],
  ['floors', 'Floors'],
  ['resting_heart_rate', 'Heart Rate'],
  ['sleep_duration', 'Sleep Duration'],
  ['weight', 'Weight'],
] as const;

export type ParticipantOverviewPageProps = {
  /** Last blood pressure (omron-data feature). */
  omronTile?: (participantId: number) => ReactNode;
  /** CGM time in range (dexcom-data feature). */
  cgmTile?: (participantId: number) => ReactNode;
};

/**
 * /ParticipantOverview: one page per participant with the latest of each brand the team
 * allows (Fitbit tiles, last blood pressure, CGM time in range), linking to each brand's page.
 */
export function ParticipantOverviewPage({ omronTile, cgmTile }: ParticipantOverviewPageProps) {
  return (
    <DataPageFrame title="Participant overview" testId="participant-overview-page">
      {(participant, trial) => (
        <Overview participant={participant} trial={trial} omronTile={omronTile} cgmTile={cgmTile} />
      )}
    </DataPageFrame>
  );
}

function Section({
  title,
  link,
  children,
  testId,
}: {
  title: string;
  link: ReactNode;
  children: ReactNode;
  testId: string;
}) {
  return (
    <Stack spacing={1} data-testid={testId}>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'baseline' }}>
        <Typography variant="h6" component="h2">
          {title}
        </Typography>
        {link}
      </Stack>
      {children}
    </Stack>
  );
}

function Overview({
  participant,
  trial,
  omronTile,
  cgmTile,
}: { participant: Participant; trial: Trial | null } & ParticipantOverviewPageProps) {
  const overview = useParticipantOverview(participant.id);
  if (overview.isPending) return <CircularProgress size={28} aria-label="Loading overview" />;
  if (overview.isError)
    return <Alert severity="error">{userMessage(overview.error, GENERIC_ERROR_MESSAGE)}</Alert>;
  const link = (to: string, label: string) => (
    <DataPageLink to={to} participant={participant} trial={trial}>
      {label}
    </DataPageLink>
  );
  return (
    <Stack spacing={3}>
      <Stack direction="row" spacing={2}>
        <DataPageLink
          to="/ParticipantReport"
          participant={participant}
          trial={trial}
          testId="participant-report-link"
        >
          Print report
        </DataPageLink>
      </Stack>
      {overview.data.brands.map(({ brand, metrics }) => {
        if (brand === 'Fitbit') {
          return (
            <Section
              key={brand}
              title="Fitbit"
              testId="overview-fitbit"
              link={
                <>
                  {link('/FitbitParticipantDataPage', 'Open Fitbit data')}
                  {link('/FitbitParticipantOverview', 'Open Fitbit overview')}
                </>
              }
            >
              <DataStateNotice
                participant={participant}
                trial={trial}
                brand="Fitbit"
                metrics={FITBIT_TILES.map(([key, label]) => ({ key, label }))}
              />
              <Grid container spacing={2}>
                {FITBIT_TILES.map(([key, label]) => {
                  const metric = metrics.find((entry) => entry.metricKey === key);
                  return (
                    <Grid key={key} size={{ xs: 6, md: 4, lg: 2 }}>
                      <Card
                        variant="outlined"
                        sx={{ height: '100%' }}
                        data-testid={`overview-fitbit-tile-${key}`}
                      >
                        <CardContent>
                          <Typography variant="overline">{label}</Typography>
                          {metric?.latestValue !== null && metric?.latestValue !== undefined ? (
                            <Typography variant="h6" component="p">
                              {fitbitTileText(key, metric.latestValue)}
                            </Typography>
                          ) : (
                            <Typography variant="body2" color="text.secondary">
                              {DEVICE_DATA_MESSAGES.noData}
                            </Typography>
                          )}
                          <Typography variant="caption" color="text.secondary">
                            {metric?.latest ? metric.latest.slice(0, 10) : ''}
                          </Typography>
                        </CardContent>
                      </Card>
                    </Grid>
                  );
                })}
              </Grid>
            </Section>
          );
        }
        if (brand === 'Omron') {
          return (
            <Section
              key={brand}
              title="Omron"
              testId="overview-omron"
              link={link('/OmronParticipantOverview', 'Open Omron overview')}
            >
              <DataStateNotice participant={participant} trial={trial} brand="Omron" />
              {omronTile?.(participant.id)}
            </Section>
          );
        }
        return (
          <Section
            key={brand}
            title="Dexcom"
            testId="overview-dexcom"
            link={link('/ParticipantDataPage', 'Open CGM summary')}
          >
            <DataStateNotice participant={participant} trial={trial} brand="Dexcom" />
            {cgmTile?.(participant.id)}
          </Section>
        );
      })}
    </Stack>
  );
}
