import { useId, type FormEventHandler, type ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog, { type DialogProps } from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';

export type FormDialogProps = {
  title: ReactNode;
  /** The form's fields, below the error. */
  children: ReactNode;
  /** Usually react-hook-form's `handleSubmit(submit)`. */
  onSubmit: FormEventHandler<HTMLFormElement>;
  onClose: () => void;
  /** While saving both buttons are disabled and the dialog does not close. */
  submitting: boolean;
  submitDisabled?: boolean;
  submitLabel?: string;
  error?: string | null;
  maxWidth?: DialogProps['maxWidth'];
  /** Test ids: `<testId>-dialog`, `<testId>-error` (or `errorTestId`), `<testId>-save`. */
  testId: string;
  errorTestId?: string;
};

/**
 * A modal form with Cancel and Save: the Save button submits the form from the dialog's
 * footer (linked by the form id), so Enter in a field submits too.
 */
export function FormDialog({
  title,
  children,
  onSubmit,
  onClose,
  submitting,
  submitDisabled = false,
  submitLabel = 'Save',
  error,
  maxWidth = 'sm',
  testId,
  errorTestId,
}: FormDialogProps) {
  const formId = useId();
  return (
    <Dialog
      open
      onClose={submitting ? undefined : onClose}
      fullWidth
      maxWidth={maxWidth}
      data-testid={`${testId}-dialog`}
    >
      <DialogTitle>{title}</DialogTitle>
      <DialogContent>
        <Stack
          component="form"
          id={formId}
          noValidate
          spacing={2}
          sx={{ pt: 1 }}
          onSubmit={onSubmit}
        >
          {error && (
            <Alert severity="error" data-testid={errorTestId ?? `${testId}-error`}>
              {error}
            </Alert>
          )}
          {children}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={submitting}>
          Cancel
        </Button>
        <Button
          type="submit"
          form={formId}
          variant="contained"
          disabled={submitting || submitDisabled}
          data-testid={`${testId}-save`}
        >
          {submitLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
