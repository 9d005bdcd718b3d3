import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import type { z } from 'zod';
import TextField from '@mui/material/TextField';
import {
  COMPLETENESS_MESSAGES,
  completenessThresholdsSchema,
  type CompletenessThresholds,
} from '@trialpulse/shared';
import { textFieldProps } from '@/components/form/text-field-props';
import { FormDialog } from '@/components/ui/form-dialog';
import { useNotify } from '@/components/notifications';
import { userMessage } from '@/lib/api-client';
import { useUpdateThresholds } from '../api/update-thresholds';

type FormValues = z.input<typeof completenessThresholdsSchema>;

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
    <FormDialog
      title="Completeness thresholds"
      onSubmit={handleSubmit(submit)}
      onClose={onClose}
      submitting={update.isPending}
      error={error}
      maxWidth="xs"
      testId="thresholds"
    >
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
    </FormDialog>
  );
}
