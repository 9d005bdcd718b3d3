import Typography from '@mui/material/Typography';
import type { BackendClient } from '@trialpulse/shared/backend-clients/backend-clients.schemas';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';

/** "Revoke client?": the pipeline gets no new tokens and its current token stops working. */
export function RevokeBackendClientDialog({
  client,
  pending,
  error,
  onConfirm,
  onClose,
}: {
  client: BackendClient;
  pending: boolean;
  error: string | null;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <ConfirmDialog
      title="Revoke client?"
      confirmLabel="Revoke"
      onConfirm={onConfirm}
      onClose={onClose}
      pending={pending}
      error={error}
      testId="revoke-backend-client"
    >
      <Typography>
        <strong>{client.name}</strong> will get no new access tokens, and the token it holds stops
        working at its next request. This cannot be undone: to let the pipeline back in, register it
        again.
      </Typography>
    </ConfirmDialog>
  );
}
