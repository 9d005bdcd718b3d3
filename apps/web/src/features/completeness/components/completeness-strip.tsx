import { createContext, useContext, type ReactNode } from 'react';
import Box from '@mui/material/Box';
import Stack from '@mui/material/Stack';
import { useTheme } from '@mui/material/styles';
import { HEALTH_WARNING_LABELS, type CompletenessStrips } from '@trialpulse/shared';
import { useCompletenessStrips } from '../api/get-completeness-strips';
import { DAY_STATE_LABELS, dayColor } from './day-colors';

const StripsContext = createContext<CompletenessStrips | undefined>(undefined);

/**
 * Loads the 14-day strips of the given participants (the rows the trial table shows) in
 * one call; `CompletenessStrip` renders one of them.
 */
export function CompletenessStripsProvider({
  trialId,
  participantIds,
  children,
}: {
  trialId: number;
  participantIds: readonly number[];
  children: ReactNode;
}) {
  const strips = useCompletenessStrips(trialId, participantIds);
  return <StripsContext.Provider value={strips.data}>{children}</StripsContext.Provider>;
}

/** One participant's last 14 days, small squares; outlined in the warning colour when sync health needs attention. */
export function CompletenessStrip({ participantId }: { participantId: number }) {
  const theme = useTheme();
  const data = useContext(StripsContext);
  const strip = data?.strips.find((candidate) => candidate.participantId === participantId);
  if (!data || !strip) return null;
  const warning = strip.warnings.length > 0;
  return (
    <Stack
      direction="row"
      spacing={0.25}
      data-testid={`completeness-strip-${participantId}`}
      data-health={warning ? 'warning' : 'ok'}
      title={
        warning
          ? strip.warnings.map((name) => HEALTH_WARNING_LABELS[name]).join(', ')
          : 'Last 14 days'
      }
      sx={{
        p: 0.25,
        borderRadius: 0.5,
        outline: warning ? `2px solid ${theme.palette.warning.main}` : undefined,
        width: 'fit-content',
      }}
    >
      {strip.states.map((state, index) => (
        <Box
          key={data.days[index]}
          title={`${data.days[index]}: ${DAY_STATE_LABELS[state]}`}
          data-state={state}
          sx={{ width: 6, height: 12, borderRadius: 0.25, bgcolor: dayColor(theme, state) }}
        />
      ))}
    </Stack>
  );
}
