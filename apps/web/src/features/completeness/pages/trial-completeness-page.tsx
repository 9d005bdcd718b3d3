import { useMemo, useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import DownloadOutlined from '@mui/icons-material/DownloadOutlined';
import HomeOutlined from '@mui/icons-material/HomeOutlined';
import TuneOutlined from '@mui/icons-material/TuneOutlined';
import {
  COMPLETENESS_MESSAGES,
  COMPLETENESS_RANGES,
  DAY_STATES,
  PATHS,
  trialSchema,
  type CompletenessRange,
  type CompletenessRow,
  type Trial,
} from '@trialpulse/shared';
import { STORAGE_KEYS, useOpenedRow } from '@/components/data-table';
import { useNotify } from '@/components/notifications';
import { API_BASE, userMessage } from '@/lib/api-client';
import { useDigestSubscription, useSetDigestSubscription } from '../api/digest-subscription';
import { useCompletenessGrid } from '../api/get-completeness-grid';
import { useTrialParticipants, useVisibleTrials } from '../api/get-trial-context';
import { CompletenessGrid } from '../components/completeness-grid';
import { DAY_STATE_LABELS } from '../components/day-colors';
import { DaySquare } from '../components/day-square';
import { ThresholdsDialog } from '../components/thresholds-dialog';

type Sort = 'worst' | 'code';

/**
 * /TrialCompleteness (every staff role, for trials they see): the participant × day grid
 * of the last 14/30/90 days against the trial's thresholds, worst first, with a "below
 * threshold" filter, the thresholds (Sys_Admin, Admin), the caller's digest opt-in and the
 * adherence CSV. Opened from the trial page (navigation state) or a digest link (`?trialId=`).
 */
export function TrialCompletenessPage() {
  const [params] = useSearchParams();
  const opened = useOpenedRow(trialSchema, {
    stateKey: 'trial',
    storageKey: STORAGE_KEYS.currentTrial,
  });
  const wantedId = Number(params.get('trialId')) || opened?.trialId;
  const needList = wantedId !== undefined && opened?.trialId !== wantedId;
  const trials = useVisibleTrials(needList);
  const trial = needList
    ? trials.data?.find((candidate) => candidate.trialId === wantedId)
    : opened;

  if (wantedId === undefined || (needList && trials.isSuccess && !trial) || trials.isError) {
    return (
      <Stack spacing={2} sx={{ alignItems: 'flex-start' }} data-testid="completeness-missing">
        <Typography>Please select a trial from the dashboard.</Typography>
        <Button
          component={RouterLink}
          to={PATHS.home}
          variant="contained"
          startIcon={<HomeOutlined />}
        >
          Go to the dashboard
        </Button>
      </Stack>
    );
  }
  if (!trial) return null;
  return (
    <Completeness trial={trial} highlightId={Number(params.get('participantId')) || undefined} />
  );
}

function Completeness({ trial, highlightId }: { trial: Trial; highlightId?: number }) {
  const notify = useNotify();
  const [range, setRange] = useState<CompletenessRange>(14);
  const [belowOnly, setBelowOnly] = useState(false);
  const [sort, setSort] = useState<Sort>('worst');
  const [editing, setEditing] = useState(false);
  const grid = useCompletenessGrid(trial.trialId, range);
  const participants = useTrialParticipants(trial.trialId);
  const digest = useDigestSubscription(trial.trialId);
  const setDigest = useSetDigestSubscription(trial.trialId);

  const byId = useMemo(
    () => new Map((participants.data ?? []).map((participant) => [participant.id, participant])),
    [participants.data],
  );
  const rows = useMemo(() => {
    const list: CompletenessRow[] = (grid.data?.rows ?? []).filter(
      (row) => !belowOnly || row.belowThreshold,
    );
    // The server answers worst first; by code is the other order staff ask for.
    return sort === 'code'
      ? [...list].sort((a, b) => a.participantCode.localeCompare(b.participantCode))
      : list;
  }, [grid.data, belowOnly, sort]);

  const days = grid.data?.days ?? [];
  const csvHref = days.length
    ? `${API_BASE}/trials/${trial.trialId}/completeness/adherence.csv?from=${days[0]}&to=${days.at(-1)}`
    : undefined;
  const thresholds = grid.data?.thresholds;

  return (
    <Stack spacing={2} data-testid="completeness-page">
      <Typography variant="h1" component="h1" data-testid="completeness-title">
        Data completeness: #{trial.trialNumber} - {trial.trialName}
      </Typography>
      <Stack direction="row" spacing={2} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <ToggleButtonGroup
          size="small"
          exclusive
          value={range}
          onChange={(_event, value: CompletenessRange | null) => value && setRange(value)}
          aria-label="Days shown"
        >
          {COMPLETENESS_RANGES.map((days) => (
            <ToggleButton key={days} value={days} data-testid={`completeness-range-${days}`}>
              {days} days
            </ToggleButton>
          ))}
        </ToggleButtonGroup>
        <TextField
          select
          size="small"
          label="Sort"
          value={sort}
          onChange={(event) => setSort(event.target.value as Sort)}
          sx={{ width: 200 }}
          slotProps={{ htmlInput: { 'data-testid': 'completeness-sort' } }}
        >
          <MenuItem value="worst">Worst first</MenuItem>
          <MenuItem value="code">Participant code</MenuItem>
        </TextField>
        <FormControlLabel
          control={
            <Switch
              checked={belowOnly}
              onChange={(event) => setBelowOnly(event.target.checked)}
              data-testid="completeness-below-only"
            />
          }
          label="Below threshold only"
        />
        <FormControlLabel
          control={
            <Switch
              checked={digest.data?.subscribed ?? false}
              disabled={!digest.isSuccess || setDigest.isPending}
              data-testid="completeness-digest"
              onChange={async (event) => {
                const subscribed = event.target.checked;
                try {
                  await setDigest.mutateAsync(subscribed);
                  notify(
                    subscribed ? COMPLETENESS_MESSAGES.digestOn : COMPLETENESS_MESSAGES.digestOff,
                    'success',
                  );
                } catch (failure) {
                  notify(userMessage(failure), 'error');
                }
              }}
            />
          }
          label="Email me a daily alert digest"
        />
        <Box sx={{ flexGrow: 1 }} />
        {grid.data?.canEditThresholds && (
          <Button
            startIcon={<TuneOutlined />}
            onClick={() => setEditing(true)}
            data-testid="completeness-thresholds-button"
          >
            Thresholds
          </Button>
        )}
        <Button
          startIcon={<DownloadOutlined />}
          href={csvHref}
          disabled={!csvHref}
          data-testid="completeness-csv"
        >
          Adherence CSV
        </Button>
      </Stack>
      {thresholds && (
        <Typography variant="body2" color="text.secondary" data-testid="completeness-thresholds">
          Valid day: at least {thresholds.minWearHours} wear hours, CGM sensor usage at least{' '}
          {thresholds.minCgmUsagePercent} %
          {thresholds.minBpReadingsPerDay > 0
            ? `, ${thresholds.minBpReadingsPerDay} blood-pressure readings`
            : ''}
          . Warning after {thresholds.maxDaysWithoutSync} days without sync.
        </Typography>
      )}
      <Stack
        component="ul"
        direction="row"
        spacing={2}
        useFlexGap
        sx={{ flexWrap: 'wrap', listStyle: 'none', p: 0, m: 0 }}
        aria-label="Legend"
        data-testid="completeness-legend"
      >
        {DAY_STATES.map((state) => (
          <Stack
            component="li"
            key={state}
            direction="row"
            spacing={0.5}
            sx={{ alignItems: 'center' }}
          >
            <DaySquare state={state} size={16} testId={`legend-${state}`} />
            <Typography variant="caption">{DAY_STATE_LABELS[state]}</Typography>
          </Stack>
        ))}
        <Stack component="li" direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
          <Box
            data-testid="legend-warning"
            sx={{ width: 12, height: 12, borderRadius: 0.5, bgcolor: 'warning.main' }}
          />
          <Typography variant="caption">Sync health needs attention</Typography>
        </Stack>
      </Stack>
      {grid.isError && <Alert severity="error">{userMessage(grid.error)}</Alert>}
      {grid.data &&
        (rows.length === 0 ? (
          <Typography color="text.secondary" data-testid="completeness-empty">
            {belowOnly
              ? 'No participant is below a threshold.'
              : 'This trial has no participants yet.'}
          </Typography>
        ) : (
          <CompletenessGrid
            grid={grid.data}
            rows={rows}
            trial={trial}
            participants={byId}
            highlightId={highlightId}
          />
        ))}
      {editing && thresholds && (
        <ThresholdsDialog
          trialId={trial.trialId}
          thresholds={thresholds}
          onClose={() => setEditing(false)}
        />
      )}
    </Stack>
  );
}
