import Box from '@mui/material/Box';
import type { DayState } from '@trialpulse/shared';
import { DAY_STYLES } from './day-colors';

/** A day's square: its fill, border and symbol (the grid cell and the legend). */
export function DaySquare({
  state,
  size = 18,
  testId,
}: {
  state: DayState;
  size?: number;
  testId?: string;
}) {
  const style = DAY_STYLES[state];
  return (
    <Box
      aria-hidden
      data-testid={testId}
      data-state={state}
      sx={{
        width: size,
        height: size,
        boxSizing: 'border-box',
        borderRadius: 0.5,
        bgcolor: style.fill,
        color: style.ink,
        border: `1px ${state === 'in_progress' ? 'dashed' : 'solid'} ${style.border}`,
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        fontSize: Math.round(size * 0.62),
        fontWeight: 700,
        lineHeight: 1,
        mx: 'auto',
        userSelect: 'none',
      }}
    >
      {style.symbol}
    </Box>
  );
}
