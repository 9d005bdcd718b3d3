import { useMemo, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import GlobalStyles from '@mui/material/GlobalStyles';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import PrintOutlined from '@mui/icons-material/PrintOutlined';
import {
  GENERIC_ERROR_MESSAGE,
  PARTICIPANT_MESSAGES,
  type DeviceBrandName,
  type Participant,
  type Trial,
} from '@trialpulse/shared';
import { ChartRendererProvider } from '@/components/charts';
import { DateRangeShortcuts } from '@/components/form/date-range-shortcuts';
import { ReturnToTrialBar, useDataPageParticipant } from '@/components/participant-data';
import { userMessage } from '@/lib/api-client';
import {
  DAY_RANGE_SHORTCUTS,
  lastDays,
  localDay,
  instantText,
  periodEndingNow,
  periodText,
} from '@/lib/day-range';
import { useParticipantOverview } from '../api/get-participant-overview';

export type ReportPeriod = { start: Date; end: Date };

export type ParticipantReportPageProps = {
  /** CGM: AGP, time in ranges, GMI, CV and daily profiles (dexcom-data feature). */
  cgm?: (participantId: number, period: ReportPeriod) => ReactNode;
  /** The Fitbit weekly summary (fitbit-data feature). */
  fitbit?: (participantId: number) => ReactNode;
  /** The blood-pressure summary (omron-data feature). */
  omron?: (participantId: number, period: ReportPeriod) => ReactNode;
  /** Renders a brand's section only if the participant linked it (devices feature). */
  whenLinked?: (participantId: number, brand: DeviceBrandName, section: ReactNode) => ReactNode;
};

/** The report's default period: 14 days, as AGP reports (and the CGM summary) use. */
const DEFAULT_DAYS = 14;

/**
 * /ParticipantReport (issue 30, decision 0165): one participant's printable report — trial,
 * participant code and period in the header; for each brand the participant linked, the
 * views the data pages show (same calls, same computations); one button prints it or saves
 * it as PDF through the browser's print dialog. Charts are drawn as SVG, the page is laid
 * out at the paper's width on screen too, and the print style sheet hides the app's
 * navigation and the controls.
 */
export function ParticipantReportPage(props: ParticipantReportPageProps) {
  const { participant, trial } = useDataPageParticipant();
  if (!participant) {
    return (
      <Alert severity="info" data-testid="participant-report-page-missing">
        {PARTICIPANT_MESSAGES.notFound}
      </Alert>
    );
  }
  return <Report participant={participant} trial={trial} {...props} />;
}

function Report({
  participant,
  trial,
  cgm,
  fitbit,
  omron,
  whenLinked = (_id, _brand, section) => section,
}: { participant: Participant; trial: Trial | null } & ParticipantReportPageProps) {
  const [search, setSearch] = useSearchParams();
  const requested = Number(search.get('days'));
  const days = (DAY_RANGE_SHORTCUTS as readonly number[]).includes(requested)
    ? requested
    : DEFAULT_DAYS;
  const period = useMemo(() => periodEndingNow(days), [days]);
  const today = localDay(period.end);
  const overview = useParticipantOverview(participant.id);

  const sections: Array<{ brand: DeviceBrandName; title: string; body: ReactNode }> = [];
  // The CGM first, as AGP reports open; then the other brands in the team's order.
  const allowed = overview.data?.brands.map((entry) => entry.brand) ?? [];
  const ordered = [...allowed].sort((a, b) => Number(b === 'Dexcom') - Number(a === 'Dexcom'));
  for (const brand of ordered) {
    if (brand === 'Dexcom' && cgm)
      sections.push({
        brand,
        title: 'Continuous glucose monitoring (Dexcom)',
        body: cgm(participant.id, period),
      });
    if (brand === 'Fitbit' && fitbit)
      sections.push({ brand, title: 'Fitbit weekly summary', body: fitbit(participant.id) });
    if (brand === 'Omron' && omron)
      sections.push({
        brand,
        title: 'Blood pressure (Omron)',
        body: omron(participant.id, period),
      });
  }

  return (
    <ChartRendererProvider renderer="svg">
      <GlobalStyles styles={PRINT_STYLES} />
      <Box
        data-testid="participant-report-page"
        sx={{ width: '180mm', maxWidth: '100%', mx: 'auto' }}
      >
        <Stack spacing={2} data-print="hide" sx={{ mb: 3 }}>
          {trial && <ReturnToTrialBar trial={trial} />}
          <Stack
            direction="row"
            spacing={2}
            useFlexGap
            sx={{ alignItems: 'center', flexWrap: 'wrap' }}
          >
            <DateRangeShortcuts
              today={today}
              value={lastDays(days, today)}
              onPick={(_range, count) => setSearch({ days: String(count) }, { replace: true })}
              testId="report-shortcuts"
            />
            <Button
              variant="contained"
              startIcon={<PrintOutlined />}
              onClick={() => window.print()}
              data-testid="report-print"
            >
              Print / save as PDF
            </Button>
          </Stack>
        </Stack>
        <Box
          component="header"
          data-report-header
          sx={{ borderBottom: 2, borderColor: 'divider', pb: 1, mb: 2 }}
        >
          <Typography variant="h1" component="h1" sx={{ fontSize: 26 }}>
            Participant report: {participant.participant_code}
          </Typography>
          <Box
            component="dl"
            sx={{
              display: 'grid',
              gridTemplateColumns: 'max-content 1fr',
              columnGap: 2,
              rowGap: 0.5,
              m: 0,
              mt: 1,
              '& dt': { fontWeight: 600 },
              '& dd': { m: 0 },
            }}
          >
            <dt>Trial</dt>
            <dd data-testid="report-trial">
              {trial ? `${trial.trialNumber} ${trial.trialName}` : '—'}
            </dd>
            <dt>Participant</dt>
            <dd data-testid="report-participant">{participant.participant_code}</dd>
            <dt>Period</dt>
            <dd data-testid="report-period">
              {periodText(period)} ({days} days)
            </dd>
            <dt>Printed</dt>
            <dd>{instantText(new Date())}</dd>
          </Box>
        </Box>
        {overview.isPending && <CircularProgress size={28} aria-label="Loading the report" />}
        {overview.isError && (
          <Alert severity="error">{userMessage(overview.error, GENERIC_ERROR_MESSAGE)}</Alert>
        )}
        {overview.data && sections.length === 0 && (
          <Alert severity="info">No device brands are enabled for this team.</Alert>
        )}
        <Stack spacing={4}>
          {sections.map(({ brand, title, body }) => (
            <Box key={brand}>
              {whenLinked(
                participant.id,
                brand,
                <Box component="section" data-testid={`report-section-${brand}`} aria-label={title}>
                  <Typography variant="h2" component="h2" sx={{ fontSize: 20, mb: 1.5 }}>
                    {title}
                  </Typography>
                  {body}
                </Box>,
              )}
            </Box>
          ))}
        </Stack>
      </Box>
    </ChartRendererProvider>
  );
}

/**
 * The print style sheet (while the report is open): A4 with 12 mm margins, so the report's
 * 180 mm fit as they are on screen (charts are not redrawn for paper); the app's navigation, footer and the report's controls
 * hidden, colours kept, and cards and tables never split across pages.
 */
const PRINT_STYLES = {
  '@page': { size: 'A4', margin: '12mm' },
  '@media print': {
    '.MuiAppBar-root, footer, nav, [data-print="hide"]': {
      display: 'none !important',
    },
    body: { background: '#fff' },
    main: { padding: '0 !important', maxWidth: 'none !important' },
    '[data-testid="participant-report-page"] .MuiPaper-root, [data-testid="participant-report-page"] table, [data-report-header]':
      { breakInside: 'avoid' },
    'h2, h3': { breakAfter: 'avoid' },
    '*': { printColorAdjust: 'exact', WebkitPrintColorAdjust: 'exact' },
  },
} as const;
