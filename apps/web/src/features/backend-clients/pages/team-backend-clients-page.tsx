import { useCallback, useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import {
  BACKEND_CLIENT_MESSAGES,
  type BackendClient,
} from '@trialpulse/shared/backend-clients/backend-clients.schemas';
import { useNotify } from '@/components/notifications';
import { userMessage } from '@/lib/api-client';
import { useBackendClients, useSmartConfiguration } from '../api/get-backend-clients';
import type { RegisterBackendClientAnswer } from '../api/register-backend-client';
import { useRevokeBackendClient } from '../api/revoke-backend-client';
import { BackendClientsTable } from '../components/backend-clients-table';
import { RegisterBackendClientDialog } from '../components/register-backend-client-dialog';
import { RevokeBackendClientDialog } from '../components/revoke-backend-client-dialog';

type Modal = { kind: 'none' } | { kind: 'register' } | { kind: 'revoke'; client: BackendClient };

/**
 * /TeamBackendClients 'Pipeline Clients' (Sys_Admin, Admin; decision 0240): the selected
 * team's SMART Backend Services clients — the pipelines that pull FHIR Bulk Data exports
 * with a token they get by signing an assertion with their private key. Register (name,
 * public key, scopes), list, revoke with confirmation.
 */
export function TeamBackendClientsPage() {
  const notify = useNotify();
  const clients = useBackendClients();
  const smart = useSmartConfiguration();
  const revoke = useRevokeBackendClient();
  const [modal, setModal] = useState<Modal>({ kind: 'none' });
  const [registered, setRegistered] = useState<BackendClient | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);
  const close = () => {
    setModal({ kind: 'none' });
    setRevokeError(null);
  };
  const openRegister = useCallback(() => setModal({ kind: 'register' }), []);
  const openRevoke = useCallback(
    (client: BackendClient) => setModal({ kind: 'revoke', client }),
    [],
  );

  const handleRegistered = (answer: RegisterBackendClientAnswer) => {
    setRegistered(answer.client);
    notify(answer.message, 'success');
    close();
  };

  const handleRevoke = async (client: BackendClient) => {
    setRevokeError(null);
    try {
      const answer = await revoke.mutateAsync(client.id);
      notify(answer.message, 'success');
      close();
    } catch (failure) {
      setRevokeError(userMessage(failure, 'Revoking the client failed.'));
    }
  };

  return (
    <Stack spacing={3} data-testid="backend-clients-page">
      <div>
        <Typography variant="h1" component="h1">
          Pipeline Clients
        </Typography>
        <Typography color="text.secondary" sx={{ mt: 0.5, maxWidth: '75ch' }}>
          Analysis pipelines (R, Python, FHIR platforms) that export this team&apos;s trials with
          FHIR Bulk Data. Each client signs its token requests with its own private key; register
          the public key here. Its access reaches only this team&apos;s trials.
        </Typography>
        {smart.data && (
          <Box
            component="dl"
            sx={{
              mt: 1.5,
              display: 'grid',
              gridTemplateColumns: { xs: '1fr', sm: 'max-content 1fr' },
              gap: 0.5,
              '& code': { overflowWrap: 'anywhere' },
            }}
            data-testid="backend-clients-endpoints"
          >
            <Typography component="dt" sx={{ fontWeight: 600, pr: 2 }}>
              FHIR base URL
            </Typography>
            <Typography component="dd" sx={{ m: 0 }}>
              <code>{smart.data.issuer}</code>
            </Typography>
            <Typography component="dt" sx={{ fontWeight: 600, pr: 2 }}>
              Token endpoint
            </Typography>
            <Typography component="dd" sx={{ m: 0 }}>
              <code>{smart.data.token_endpoint}</code>
            </Typography>
          </Box>
        )}
      </div>
      {registered && (
        <Alert
          severity="success"
          onClose={() => setRegistered(null)}
          sx={{ '& code': { overflowWrap: 'anywhere' } }}
          data-testid="backend-client-registered"
        >
          {BACKEND_CLIENT_MESSAGES.registered} Client ID for <strong>{registered.name}</strong>:{' '}
          <code>{registered.clientId}</code> — the pipeline uses it as the <code>iss</code> and{' '}
          <code>sub</code> of its assertions.
        </Alert>
      )}
      {clients.isError ? (
        <Alert severity="error" data-testid="backend-clients-error">
          {userMessage(clients.error, 'The pipeline clients could not be loaded.')}
        </Alert>
      ) : (
        <BackendClientsTable
          clients={clients.data ?? []}
          isLoading={clients.isPending}
          onRegister={openRegister}
          onRevoke={openRevoke}
        />
      )}
      {modal.kind === 'register' && (
        <RegisterBackendClientDialog onRegistered={handleRegistered} onClose={close} />
      )}
      {modal.kind === 'revoke' && (
        <RevokeBackendClientDialog
          client={modal.client}
          pending={revoke.isPending}
          error={revokeError}
          onConfirm={() => void handleRevoke(modal.client)}
          onClose={close}
        />
      )}
    </Stack>
  );
}
