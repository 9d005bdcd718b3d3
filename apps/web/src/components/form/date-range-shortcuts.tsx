import Button from '@mui/material/Button';
import ButtonGroup from '@mui/material/ButtonGroup';
import { DAY_RANGE_SHORTCUTS, lastDays, type DayRange } from '@/lib/day-range';

/**
 * The "last 7 / 14 / 30 / 90 days" shortcuts of every data form (issue 30, decision 0166):
 * a click hands the form the range ending `today` (the form's own today, the one its date
 * pickers cap at), which the form sets through its ordinary fields so its own checks and
 * the spec's messages apply as if typed. `active` marks the shortcut the form's range
 * equals.
 */
export function DateRangeShortcuts({
  today,
  onPick,
  value,
  testId = 'date-shortcuts',
  days = DAY_RANGE_SHORTCUTS,
}: {
  today: string;
  onPick: (range: DayRange, days: number) => void;
  /** The form's current range, to mark the matching shortcut. */
  value?: Partial<DayRange> | null;
  testId?: string;
  days?: readonly number[];
}) {
  return (
    <ButtonGroup
      size="small"
      variant="outlined"
      role="group"
      aria-label="Date range shortcuts"
      data-testid={testId}
    >
      {days.map((count) => {
        const range = lastDays(count, today);
        const active = value?.start === range.start && value?.end === range.end;
        return (
          <Button
            key={count}
            variant={active ? 'contained' : 'outlined'}
            aria-pressed={active}
            aria-label={`Last ${count} days`}
            onClick={() => onPick(range, count)}
            data-testid={`${testId}-${count}`}
            // "7 days" on one line, also in a data page's narrow sidebar (issue 30).
            sx={{ whiteSpace: 'nowrap', minWidth: 0, px: 1 }}
          >
            {count} days
          </Button>
        );
      })}
    </ButtonGroup>
  );
}
