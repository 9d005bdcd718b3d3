import { createContext, useContext, useMemo, type ReactNode } from 'react';
import Box from '@mui/material/Box';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import { useTheme } from '@mui/material/styles';
import {
  DAY_STATES,
  HEALTH_WARNING_LABELS,
  type CompletenessStrips,
  type DayState,
} from '@trialpulse/shared';
import { useCompletenessStrips } from '../api/get-completeness-strips';
import { DAY_STATE_LABELS, DAY_STYLES } from './day-colors';

/** The strips once loaded; `pending` while the call is out (the cells keep their height). */
type StripsState = { data: CompletenessStrips | undefined; pending: boolean };

const StripsContext = createContext<StripsState | undefined>(undefined);

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
  const state = useMemo(
    () => ({ data: strips.data, pending: strips.isLoading }),
    [strips.data, strips.isLoading],
  );
  return <StripsContext.Provider value={state}>{children}</StripsContext.Provider>;
}

/** One participant's last 14 days, small squares; outlined in the warning colour when sync health needs attention. */
export function CompletenessStrip({ participantId }: { participantId: number }) {
  const theme = useTheme();
  const state = useContext(StripsContext);
  if (state?.pending) {
    // 14 squares of 6 px with 2 px between and the 2 px padding: the strip's own size.
    return (
      <Skeleton
        variant="rounded"
        width={14 * 6 + 13 * 2 + 4}
        height={16}
        data-testid={`pending-completeness-strip-${participantId}`}
      />
    );
  }
  const data = state?.data;
  const strip = data?.strips.find((candidate) => candidate.participantId === participantId);
  if (!data || !strip) return null;
  const warning = strip.warnings.length > 0;
  return (
    <Stack
      direction="row"
      spacing={0.25}
      data-testid={`completeness-strip-${participantId}`}
      data-health={warning ? 'warning' : 'ok'}
      role="img"
      aria-label={stripText(
        strip.states,
        strip.warnings.map((name) => HEALTH_WARNING_LABELS[name]),
      )}
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
          sx={{
            width: 6,
            height: 12,
            boxSizing: 'border-box',
            borderRadius: 0.25,
            bgcolor: DAY_STYLES[state].fill,
            border: `1px solid ${DAY_STYLES[state].border}`,
          }}
        />
      ))}
    </Stack>
  );
}

/** The strip as words: how many of the 14 days are in each state, and any warnings. */
export function stripText(states: readonly DayState[], warnings: readonly string[]): string {
  const counts = DAY_STATES.filter((state) => states.includes(state)).map(
    (state) =>
      `${states.filter((s) => s === state).length} ${DAY_STATE_LABELS[state].toLowerCase()}`,
  );
  const text = `Last ${states.length} days: ${counts.join(', ')}`;
  return warnings.length > 0 ? `${text}. Needs attention: ${warnings.join(', ')}` : text;
}
