import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import type { z } from 'zod';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import {
  COMPLETENESS_MESSAGES,
  completenessThresholdsSchema,
  type CompletenessThresholds,
} from '@trialpulse/shared';
import { textFieldProps } from '@/components/form/text-field-props';
import { useNotify } from '@/components/notifications';
import { userMessage } from '@/lib/api-client';
import { useUpdateThresholds } from '../api/update-thresholds';

type FormValues = z.input<typeof completenessThresholdsSchema>;
const FORM_ID = 'completeness-thresholds-form';

/** The trial's thresholds (Sys_Admin, Admin): saving recolours the grid. */
export function ThresholdsDialog({
  trialId,
  thresholds,
  onClose,
}: {
  trialId: number;
  thresholds: CompletenessThresholds;
  onClose: () => void;
}) {
  const notify = useNotify();
  const update = useUpdateThresholds(trialId);
  const [error, setError] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<FormValues, unknown, CompletenessThresholds>({
    resolver: zodResolver(completenessThresholdsSchema),
    defaultValues: thresholds,
  });

  const submit = async (input: CompletenessThresholds) => {
    setError(null);
    try {
      await update.mutateAsync(input);
      notify(COMPLETENESS_MESSAGES.thresholdsSaved, 'success');
      onClose();
    } catch (failure) {
      setError(userMessage(failure));
    }
  };

  return (
    <Dialog
      open
      onClose={update.isPending ? undefined : onClose}
      fullWidth
      maxWidth="xs"
      data-testid="thresholds-dialog"
    >
      <DialogTitle>Completeness thresholds</DialogTitle>
      <DialogContent>
        <Stack
          component="form"
          id={FORM_ID}
          noValidate
          spacing={2}
          sx={{ pt: 1 }}
          onSubmit={handleSubmit(submit)}
        >
          {error && <Alert severity="error">{error}</Alert>}
          <TextField
            id="min-wear-hours"
            label="Valid day: at least this many wear hours"
            type="number"
            {...textFieldProps(register('minWearHours'), errors.minWearHours)}
          />
          <TextField
            id="min-cgm-usage"
            label="CGM sensor usage at least (%)"
            type="number"
            {...textFieldProps(register('minCgmUsagePercent'), errors.minCgmUsagePercent)}
          />
          <TextField
            id="min-bp-readings"
            label="Blood-pressure readings per day (0: none required)"
            type="number"
            {...textFieldProps(register('minBpReadingsPerDay'), errors.minBpReadingsPerDay)}
          />
          <TextField
            id="max-days-without-sync"
            label="Most days without sync"
            type="number"
            {...textFieldProps(register('maxDaysWithoutSync'), errors.maxDaysWithoutSync)}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={update.isPending}>
          Cancel
        </Button>
        <Button
          type="submit"
          form={FORM_ID}
          variant="contained"
          disabled={update.isPending}
          data-testid="thresholds-save"
        >
          Save
        </Button>
      </DialogActions>
    </Dialog>
  );
}
