import { useEffect, useRef, useState } from 'react';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import TextField from '@mui/material/TextField';
import ClearIcon from '@mui/icons-material/Clear';
import SearchIcon from '@mui/icons-material/Search';
import { LIMITS, PAGING } from '@trialpulse/shared';

type DebouncedSearchFieldProps = {
  /** The applied filter (the field starts from it). */
  value: string;
  onChange: (value: string) => void;
  label?: string;
  delayMs?: number;
  testId?: string;
};

/**
 * A table's global search box: the text applies `delayMs` (200 ms, access spec §9) after
 * the last keystroke; clearing applies at once. material-react-table's own box waits a
 * fixed 250 ms, hence this one.
 */
export function DebouncedSearchField({
  value,
  onChange,
  label = 'Search',
  delayMs = LIMITS.filterDebounceMs,
  testId,
}: DebouncedSearchFieldProps) {
  const [text, setText] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const apply = (next: string, delay: number) => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    if (delay === 0) onChange(next);
    else timer.current = setTimeout(() => onChange(next), delay);
  };

  return (
    <TextField
      size="small"
      label={label}
      value={text}
      onChange={(event) => {
        setText(event.target.value);
        apply(event.target.value, delayMs);
      }}
      slotProps={{
        htmlInput: {
          autoComplete: 'off',
          maxLength: PAGING.maxFilterLength,
          'data-testid': testId,
        },
        input: {
          startAdornment: (
            <InputAdornment position="start">
              <SearchIcon fontSize="small" />
            </InputAdornment>
          ),
          endAdornment: text ? (
            <InputAdornment position="end">
              <IconButton
                size="small"
                aria-label="Clear search"
                onClick={() => {
                  setText('');
                  apply('', 0);
                }}
              >
                <ClearIcon fontSize="small" />
              </IconButton>
            </InputAdornment>
          ) : undefined,
        },
      }}
      sx={{ minWidth: { xs: '100%', sm: 260 } }}
    />
  );
}
