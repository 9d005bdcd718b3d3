import { useState, type ChangeEvent } from 'react';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  EMPTY_FITBIT_QUERY,
  FITBIT_CATEGORIES,
  FITBIT_CATEGORY_LABELS,
  FITBIT_CATEGORY_OPTIONS,
  FITBIT_HEART_DETAIL_LEVELS,
  FITBIT_MAX_LOGS_CHOICES,
  FITBIT_OPTION_FIELD,
  FITBIT_PERIOD_LABELS,
  chosenOption,
  fitbitQueryRange,
  fitbitQueryShortcut,
  isFitbitCategory,
  optionSpec,
  selectFitbitCategory,
  selectFitbitOption,
  validateFitbitQuery,
  type FitbitQueryErrors,
  type FitbitQueryField,
  type FitbitQueryForm as FitbitQueryValues,
} from '@trialpulse/shared/device-data/fitbit-query';
import { DateRangeShortcuts } from '@/components/form/date-range-shortcuts';
import { DAY_RANGE_SHORTCUTS } from '@/lib/day-range';
import { localToday } from '../../common/utils/units';

const OPTION_LABEL = {
  activities: 'Resource',
  body: 'Resource',
  heart: 'Heart Option',
  sleep: 'Sleep Option',
  foods: 'Foods Option',
  healthMetrics: 'Health Metrics Option',
} as const;

const selectProps = { select: { native: true }, inputLabel: { shrink: true } } as const;

/**
 * The Fitbit query form of the data page's sidebar (device-data §2–§5): category, its
 * option, period or dates, time, heart detail level and max logs. Choosing a category applies
 * its defaults with period 7d; every change re-submits when the query passes the §5 checks,
 * and shows their messages when it does not (nothing is sent then). Clear empties the form
 * and returns to the overview.
 */
export function FitbitQueryForm({
  initial = EMPTY_FITBIT_QUERY,
  onSubmit,
  onClear,
  today = localToday(),
}: {
  initial?: FitbitQueryValues;
  onSubmit: (query: FitbitQueryValues) => void;
  onClear?: () => void;
  today?: string;
}) {
  const [values, setValues] = useState<FitbitQueryValues>(initial);
  const [errors, setErrors] = useState<FitbitQueryErrors>({});

  const submit = (next: FitbitQueryValues) => {
    const found = validateFitbitQuery(next, today);
    setErrors(found);
    if (Object.keys(found).length === 0) onSubmit(next);
  };
  const change = (next: FitbitQueryValues) => {
    setValues(next);
    submit(next);
  };
  const field =
    (name: FitbitQueryField) => (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
      change({ ...values, [name]: event.target.value });
  const errorOf = (name: FitbitQueryField) => ({
    error: Boolean(errors[name]),
    helperText: errors[name],
    slotProps: { formHelperText: { 'data-testid': `fitbit-error-${name}` } as object },
  });

  const category = isFitbitCategory(values.category) ? values.category : null;
  const spec = optionSpec(values);
  const option = chosenOption(values);
  const isList = spec?.shape === 'list';
  const isDay = spec?.shape === 'day';
  const custom = values.period === 'customDates';
  // Only the shortcuts this option can ask (decision 0190).
  const shortcuts = DAY_RANGE_SHORTCUTS.filter(
    (days) => fitbitQueryShortcut(values, days, today) !== null,
  );

  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Stack
        component="form"
        noValidate
        spacing={2}
        data-testid="fitbit-query-form"
        onSubmit={(event) => {
          event.preventDefault();
          submit(values);
        }}
      >
        <Typography variant="h6" component="h2">
          Fitbit query
        </Typography>
        <TextField
          id="fitbit-category"
          label="Category *"
          select
          value={values.category}
          slotProps={{
            ...selectProps,
            formHelperText: { 'data-testid': 'fitbit-error-category' } as object,
          }}
          onChange={(event) =>
            change(
              isFitbitCategory(event.target.value)
                ? selectFitbitCategory(event.target.value)
                : { ...EMPTY_FITBIT_QUERY },
            )
          }
          error={Boolean(errors.category)}
          helperText={errors.category}
        >
          <option value="">Select a category</option>
          {FITBIT_CATEGORIES.map((value) => (
            <option key={value} value={value}>
              {FITBIT_CATEGORY_LABELS[value]}
            </option>
          ))}
        </TextField>

        {category && (
          <TextField
            id="fitbit-option"
            label={`${OPTION_LABEL[category]} *`}
            select
            value={option}
            slotProps={{
              ...selectProps,
              formHelperText: { 'data-testid': 'fitbit-error-option' } as object,
            }}
            onChange={(event) => change(selectFitbitOption(values, event.target.value))}
            error={Boolean(errors[FITBIT_OPTION_FIELD[category]])}
            helperText={errors[FITBIT_OPTION_FIELD[category]]}
          >
            <option value="">Select an option</option>
            {Object.entries(FITBIT_CATEGORY_OPTIONS[category]).map(([value, { label }]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </TextField>
        )}

        {spec && !isList && (
          <TextField
            id="fitbit-period"
            label="Period *"
            select
            value={values.period}
            slotProps={{
              ...selectProps,
              formHelperText: { 'data-testid': 'fitbit-error-period' } as object,
            }}
            onChange={field('period')}
            error={Boolean(errors.period)}
            helperText={errors.period}
          >
            <option value="">Select a period</option>
            {spec.periods.map((period) => (
              <option key={period} value={period}>
                {FITBIT_PERIOD_LABELS[period]}
              </option>
            ))}
          </TextField>
        )}

        {spec && isList && (
          <TextField
            id="fitbit-subject"
            label="Before or after date *"
            select
            value={values.subject}
            slotProps={{
              ...selectProps,
              formHelperText: { 'data-testid': 'fitbit-error-subject' } as object,
            }}
            onChange={field('subject')}
            error={Boolean(errors.subject)}
            helperText={errors.subject}
          >
            <option value="">Select before or after</option>
            <option value="before">Before date</option>
            <option value="after">After date</option>
          </TextField>
        )}

        {spec && (isList || custom) && (
          <TextField
            id="fitbit-start-date"
            label={isList || isDay ? 'Date *' : 'Start Date *'}
            type="date"
            value={values.startDate}
            onChange={field('startDate')}
            slotProps={{
              inputLabel: { shrink: true },
              htmlInput: { max: !isList && !isDay && values.endDate ? values.endDate : today },
              formHelperText: { 'data-testid': 'fitbit-error-startDate' } as object,
            }}
            error={Boolean(errors.startDate)}
            helperText={errors.startDate}
          />
        )}
        {spec && custom && !isDay && !isList && (
          <TextField
            id="fitbit-end-date"
            label="End Date *"
            type="date"
            value={values.endDate}
            onChange={field('endDate')}
            slotProps={{
              inputLabel: { shrink: true },
              htmlInput: { max: today, min: values.startDate || undefined },
              formHelperText: { 'data-testid': 'fitbit-error-endDate' } as object,
            }}
            error={Boolean(errors.endDate)}
            helperText={errors.endDate}
          />
        )}

        {shortcuts.length > 0 && (
          <DateRangeShortcuts
            today={today}
            days={shortcuts}
            value={values.period ? fitbitQueryRange(values, today) : null}
            onPick={(_range, days) => {
              const next = fitbitQueryShortcut(values, days, today);
              if (next) change(next);
            }}
            testId="fitbit-shortcuts"
          />
        )}

        {spec && (isList || isDay) && (
          <FormControlLabel
            control={
              <Checkbox
                id="fitbit-include-time"
                checked={values.includeTime}
                onChange={(event) => change({ ...values, includeTime: event.target.checked })}
              />
            }
            label="Include time"
          />
        )}
        {spec && (isList || isDay) && values.includeTime && (
          <Stack direction="row" spacing={1}>
            <TextField
              id="fitbit-start-time"
              label="Start Time"
              type="time"
              value={values.startTime}
              onChange={field('startTime')}
              slotProps={{
                inputLabel: { shrink: true },
                formHelperText: { 'data-testid': 'fitbit-error-startTime' } as object,
              }}
              error={Boolean(errors.startTime)}
              helperText={errors.startTime}
            />
            {isDay && (
              <TextField
                id="fitbit-end-time"
                label="End Time"
                type="time"
                value={values.endTime}
                onChange={field('endTime')}
                slotProps={{ inputLabel: { shrink: true } }}
              />
            )}
          </Stack>
        )}
        {errors.endTime && (
          <Typography color="error" variant="caption" data-testid="fitbit-error-endTime">
            {errors.endTime}
          </Typography>
        )}

        {category === 'heart' && option === 'intraday' && (
          <TextField
            id="fitbit-heart-detail"
            label="Heart detail level"
            select
            value={values.heartDetailLevel}
            slotProps={selectProps}
            onChange={field('heartDetailLevel')}
          >
            {FITBIT_HEART_DETAIL_LEVELS.map((level) => (
              <option key={level} value={level}>
                {level}
              </option>
            ))}
          </TextField>
        )}
        {category === 'activities' && isList && (
          <MaxLogsField
            id="fitbit-max-activity-logs"
            label="Max activity logs *"
            value={values.maxActivityLogs}
            onChange={field('maxActivityLogs')}
            {...errorOf('maxActivityLogs')}
          />
        )}
        {category === 'sleep' && isList && (
          <MaxLogsField
            id="fitbit-max-sleep-logs"
            label="Max sleep logs *"
            value={values.maxSleepLogs}
            onChange={field('maxSleepLogs')}
            {...errorOf('maxSleepLogs')}
          />
        )}

        <Stack direction="row" spacing={1}>
          <Button type="submit" variant="contained" data-testid="fitbit-query-submit">
            Submit
          </Button>
          <Button
            data-testid="fitbit-query-clear"
            onClick={() => {
              setValues(EMPTY_FITBIT_QUERY);
              setErrors({});
              onClear?.();
            }}
          >
            Clear
          </Button>
        </Stack>
      </Stack>
    </Paper>
  );
}

function MaxLogsField({
  id,
  label,
  value,
  onChange,
  error,
  helperText,
  slotProps,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => void;
  error: boolean;
  helperText?: string;
  slotProps: { formHelperText: object };
}) {
  return (
    <TextField
      id={id}
      label={label}
      select
      value={value}
      onChange={onChange}
      error={error}
      helperText={helperText}
      slotProps={{ ...selectProps, ...slotProps }}
    >
      <option value="">Select max logs</option>
      {FITBIT_MAX_LOGS_CHOICES.map((choice) => (
        <option key={choice} value={String(choice)}>
          {choice}
        </option>
      ))}
    </TextField>
  );
}
