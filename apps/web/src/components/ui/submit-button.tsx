import type { ReactNode } from 'react';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';

/** A form's submit button: disabled with a spinner while the request runs. */
export function SubmitButton({
  children,
  submitting,
  testId,
}: {
  children: ReactNode;
  submitting: boolean;
  testId?: string;
}) {
  return (
    <Button
      type="submit"
      variant="contained"
      size="large"
      disabled={submitting}
      data-testid={testId}
      startIcon={submitting ? <CircularProgress size={18} color="inherit" /> : undefined}
    >
      {children}
    </Button>
  );
}
