import { useMemo, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { z } from 'zod';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { LIMITS, participantSchema, trialSchema } from '@trialpulse/shared';

const stateSchema = z.object({
  participants: z.array(participantSchema).min(1).max(LIMITS.multiRowSelectionCap),
  trial: trialSchema.nullish(),
});

const NEXT = {
  fitbit: '/FitbitParticipantsDataPage',
  omron: '/OmronParticipantsDataPage',
} as const;

/**
 * /ParticipantsDataPage (device-data §2): for participants selected on the trial page,
 * choose a device (fitbit or omron) and go on to that device's side-by-side page.
 */
export function ParticipantsDataPage() {
  const navigate = useNavigate();
  const { state } = useLocation() as { state: unknown };
  const parsed = useMemo(() => stateSchema.safeParse(state), [state]);
  const [device, setDevice] = useState<'' | keyof typeof NEXT>('');
  if (!parsed.success) {
    return (
      <Alert severity="info" data-testid="participants-data-missing">
        Select participants on the trial page first.
      </Alert>
    );
  }
  const { participants, trial } = parsed.data;
  return (
    <Stack spacing={2} sx={{ maxWidth: 480 }} data-testid="participants-data-page">
      <Typography variant="h1" component="h1" sx={{ fontSize: 28 }}>
        Data of {participants.length} {participants.length === 1 ? 'participant' : 'participants'}
      </Typography>
      <Typography>{participants.map((p) => p.participant_code).join(', ')}</Typography>
      <TextField
        id="participants-data-device"
        select
        label="Device"
        value={device}
        onChange={(event) => setDevice(event.target.value as '' | keyof typeof NEXT)}
        slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
      >
        <option value="">Select a device</option>
        <option value="fitbit">fitbit</option>
        <option value="omron">omron</option>
      </TextField>
      <Button
        variant="contained"
        disabled={device === ''}
        onClick={() => device && void navigate(NEXT[device], { state: { participants, trial } })}
        data-testid="participants-data-continue"
      >
        Continue
      </Button>
    </Stack>
  );
}
