import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  OMRON_CATEGORIES,
  OMRON_CATEGORY_LABELS,
  OMRON_RESULT_LIMITS,
} from '@trialpulse/shared/device-data/device-data.schemas';
import { DateRangeShortcuts } from '@/components/form/date-range-shortcuts';
import { textFieldProps } from '@/components/form/text-field-props';
import {
  EMPTY_OMRON_FORM,
  RESULT_LIMIT_LABEL,
  localToday,
  omronFormSchema,
  type OmronFormValues,
} from '../utils/omron-form';

/**
 * The Omron query form (device-data §2, §5): category, start date (not after today) and
 * results limit, each required with the spec's message; nothing is sent while one fails.
 * Clear empties the form.
 */
export function OmronQueryForm({
  initial,
  onSubmit,
  busy,
}: {
  initial: OmronFormValues;
  onSubmit: (values: OmronFormValues) => void;
  busy: boolean;
}) {
  const {
    register,
    handleSubmit,
    reset,
    setValue,
    watch,
    formState: { errors },
  } = useForm<OmronFormValues>({ resolver: zodResolver(omronFormSchema), defaultValues: initial });
  const today = localToday();
  const since = watch('since');

  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Stack
        component="form"
        noValidate
        spacing={2}
        onSubmit={handleSubmit(onSubmit)}
        data-testid="omron-query-form"
      >
        <Typography variant="h6" component="h2">
          Omron query
        </Typography>
        <TextField
          id="omron-category"
          label="Category *"
          select
          slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
          {...textFieldProps(register('category'), errors.category)}
        >
          <option value="">Select a category</option>
          {OMRON_CATEGORIES.map((category) => (
            <option key={category} value={category}>
              {OMRON_CATEGORY_LABELS[category]}
            </option>
          ))}
        </TextField>
        <TextField
          id="omron-since"
          label="Start Date *"
          type="date"
          slotProps={{ inputLabel: { shrink: true }, htmlInput: { max: today } }}
          {...textFieldProps(register('since'), errors.since)}
        />
        {/* From the first of the last N days (today included); submitted as Submit would. */}
        <DateRangeShortcuts
          today={today}
          value={{ start: since, end: today }}
          onPick={(range) => {
            setValue('since', range.start, { shouldValidate: true });
            void handleSubmit(onSubmit)();
          }}
          testId="omron-shortcuts"
        />
        <TextField
          id="omron-limit"
          label="Results Limit *"
          select
          slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
          {...textFieldProps(register('limit'), errors.limit)}
        >
          <option value="">Select a limit</option>
          {OMRON_RESULT_LIMITS.map((limit) => (
            <option key={limit} value={String(limit)}>
              {RESULT_LIMIT_LABEL(limit)}
            </option>
          ))}
        </TextField>
        <Stack direction="row" spacing={1}>
          <Button
            type="submit"
            variant="contained"
            disabled={busy}
            data-testid="omron-query-submit"
          >
            Submit
          </Button>
          <Button onClick={() => reset(EMPTY_OMRON_FORM)} data-testid="omron-query-clear">
            Clear
          </Button>
        </Stack>
      </Stack>
    </Paper>
  );
}
