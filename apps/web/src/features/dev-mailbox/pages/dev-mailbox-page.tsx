import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import Refresh from '@mui/icons-material/Refresh';
import { useDevMailbox, type DevMail } from '@/lib/dev-mailbox';
import { MailCard } from '../components/mail-card';

/** /DevMailbox (demo mode only): the mails the server "sent", newest first. */
export function DevMailboxPage() {
  const mailbox = useDevMailbox();
  const mails = [...(mailbox.data ?? [])].sort((a, b) => time(b) - time(a));

  return (
    <Stack spacing={3} data-testid="dev-mailbox-page" sx={{ maxWidth: 900, mx: 'auto' }}>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between' }}>
        <div>
          <Typography variant="h1" component="h1">
            Demo mailbox
          </Typography>
          <Typography color="text.secondary" sx={{ mt: 0.5 }}>
            Demo mode sends no real email: every message lands here instead.
          </Typography>
        </div>
        <Button
          startIcon={mailbox.isFetching ? <CircularProgress size={16} /> : <Refresh />}
          onClick={() => void mailbox.refetch()}
          data-testid="dev-mailbox-refresh"
        >
          Refresh
        </Button>
      </Stack>
      {mails.length === 0 ? (
        <Alert severity="info" data-testid="dev-mailbox-empty">
          No mail yet.
        </Alert>
      ) : (
        mails.map((mail) => <MailCard key={mail.id} mail={mail} />)
      )}
    </Stack>
  );
}

function time(mail: DevMail): number {
  return Date.parse(mail.createdAt) || 0;
}
