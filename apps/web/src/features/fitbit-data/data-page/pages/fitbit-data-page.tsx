import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import type { FitbitQueryForm as FitbitQuery } from '@trialpulse/shared/device-data/fitbit-query';
import {
  DataPageFrame,
  DataStateNotice,
  useDataPageParticipant,
} from '@/components/participant-data';
import CircularProgress from '@mui/material/CircularProgress';
import { getParticipant, participantQueryKey } from '@/lib/api/participant';
import { useTrial } from '@/lib/api/trials';
import { FitbitQueryForm } from '../components/fitbit-query-form';
import { FitbitQueryResults } from '../components/fitbit-query-results';
import { OverviewTiles } from '../components/overview-tiles';

export const PARTICIPANT_PARAM = 'participantId';

/** The stored metrics behind the six tiles, to say which the team does not store (decision 0191). */
const TILE_METRICS = [
  { key: 'steps', label: 'Steps' },
  { key: 'distance', label: 'Distance' },
  { key: 'floors', label: 'Floors' },
  { key: 'resting_heart_rate', label: 'Heart Rate' },
  { key: 'sleep_duration', label: 'Sleep Duration' },
  { key: 'weight', label: 'Weight' },
];

/**
 * /FitbitParticipantDataPage (device-data §2): the query form in the 320-px sidebar; the
 * main area shows the overview tiles until a query is chosen, then its chart and table.
 * The participant comes from navigation state and is written to the URL
 * (`?participantId=`), so a reload or a shared link opens the same participant.
 */
export function FitbitDataPage() {
  const ready = useParticipantFromUrl();
  const [query, setQuery] = useState<FitbitQuery | null>(null);
  // Not FullPageLoader: importing it here made the bundler split shared modules out of the
  // entry chunk, and the login page's JavaScript grew (decision 0067).
  if (!ready) return <CircularProgress aria-label="Loading the participant" />;
  return (
    <DataPageFrame
      title="Fitbit data"
      testId="fitbit-data-page"
      sidebar={() => <FitbitQueryForm onSubmit={setQuery} onClear={() => setQuery(null)} />}
    >
      {(participant, trial) =>
        query ? (
          <Stack spacing={1}>
            <Button
              size="small"
              sx={{ alignSelf: 'flex-start' }}
              onClick={() => setQuery(null)}
              data-testid="fitbit-back-to-overview"
            >
              Back to overview
            </Button>
            <FitbitQueryResults
              participantId={participant.id}
              participantCode={participant.participant_code}
              email={participant.email}
              query={query}
            />
          </Stack>
        ) : (
          <Stack spacing={2}>
            <DataStateNotice
              participant={participant}
              trial={trial}
              brand="Fitbit"
              metrics={TILE_METRICS}
            />
            <OverviewTiles
              participantId={participant.id}
              participantCode={participant.participant_code}
            />
          </Stack>
        )
      }
    </DataPageFrame>
  );
}

/**
 * Keeps `?participantId=` in step with the page's participant. When the URL names another
 * participant than navigation state or storage hold (a link opened in a new tab), that
 * participant and their trial are loaded and put into navigation state. False while loading.
 */
function useParticipantFromUrl(): boolean {
  const { participant } = useDataPageParticipant();
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const fromUrl = Number(params.get(PARTICIPANT_PARAM));
  const wanted = Number.isInteger(fromUrl) && fromUrl > 0 ? fromUrl : null;
  const mismatch = wanted !== null && participant?.id !== wanted;
  const loaded = useQuery({
    queryKey: participantQueryKey(wanted ?? 0),
    queryFn: () => getParticipant(wanted!),
    enabled: mismatch,
    retry: false,
  });
  const trial = useTrial(mismatch && loaded.data ? loaded.data.trialId : null);

  useEffect(() => {
    if (mismatch && loaded.data && !trial.isPending) {
      void navigate(`${location.pathname}?${PARTICIPANT_PARAM}=${loaded.data.id}`, {
        replace: true,
        state: { participant: loaded.data, trial: trial.data ?? null },
      });
    }
  }, [mismatch, loaded.data, trial.isPending, trial.data, navigate, location.pathname]);

  useEffect(() => {
    if (participant && wanted === null) {
      setParams(
        { [PARTICIPANT_PARAM]: String(participant.id) },
        { replace: true, state: location.state },
      );
    }
  }, [participant, wanted, setParams, location.state]);

  // A participant the caller may not see (404) falls back to the remembered one.
  return !mismatch || loaded.isError;
}
