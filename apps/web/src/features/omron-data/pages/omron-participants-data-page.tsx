import { useMemo, useState } from 'react';
import { useLocation } from 'react-router';
import { z } from 'zod';
import Alert from '@mui/material/Alert';
import Grid from '@mui/material/Grid';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { LIMITS, participantSchema, trialSchema } from '@trialpulse/shared';
import { OmronQueryForm } from '../components/omron-query-form';
import { OmronResults } from '../components/omron-results';
import { defaultOmronForm, toOmronQuery, type OmronFormValues } from '../utils/omron-form';
import { ReturnToTrialBar } from '@/components/participant-data';
import type { OmronWhenLinked } from './omron-data-page';

const participantsSchema = z.array(participantSchema).min(1).max(LIMITS.multiRowSelectionCap);

/**
 * /OmronParticipantsDataPage (decision 0003): the participants selected on the trial page
 * (up to 10, passed on by /ParticipantsDataPage) side by side, one query for all, under the
 * return bar to the trial as on the Fitbit side.
 */
export function OmronParticipantsDataPage({
  whenLinked = (_participantId, view) => view,
}: {
  /** Shows a participant who never linked Omron as such, without asking (issue 30). */
  whenLinked?: OmronWhenLinked;
}) {
  const { state } = useLocation() as { state: unknown };
  const participants = useMemo(() => {
    const parsed = participantsSchema.safeParse(
      (state as { participants?: unknown } | null)?.participants,
    );
    return parsed.success ? parsed.data : null;
  }, [state]);
  const trial = useMemo(() => {
    const parsed = trialSchema.safeParse((state as { trial?: unknown } | null)?.trial);
    return parsed.success ? parsed.data : null;
  }, [state]);
  const [initial] = useState(defaultOmronForm);
  const [submitted, setSubmitted] = useState<OmronFormValues>(initial);
  if (!participants) {
    return (
      <Alert severity="info" data-testid="omron-participants-missing">
        Select participants on the trial page first.
      </Alert>
    );
  }
  return (
    <Stack spacing={2} data-testid="omron-participants-data-page">
      {trial && <ReturnToTrialBar trial={trial} />}
      <Typography variant="h1" component="h1" sx={{ fontSize: 28 }}>
        Omron data of {participants.length}{' '}
        {participants.length === 1 ? 'participant' : 'participants'}
      </Typography>
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: 'flex-start' }}>
        <div style={{ width: LIMITS.sidebarWidth, flexShrink: 0 }}>
          <OmronQueryForm initial={initial} onSubmit={setSubmitted} busy={false} />
        </div>
        <Grid container spacing={2} sx={{ flex: 1 }}>
          {participants.map((participant) => (
            <Grid key={participant.id} size={{ xs: 12, lg: participants.length > 1 ? 6 : 12 }}>
              <Paper
                variant="outlined"
                sx={{ p: 1.5 }}
                data-testid={`omron-participant-${participant.id}`}
              >
                <Typography variant="h6" component="h2">
                  {participant.participant_code}
                </Typography>
                {whenLinked(
                  participant.id,
                  <OmronResults
                    participantId={participant.id}
                    participantCode={participant.participant_code}
                    query={toOmronQuery(submitted)}
                    showTable={false}
                  />,
                )}
              </Paper>
            </Grid>
          ))}
        </Grid>
      </Stack>
    </Stack>
  );
}
