import { Link as RouterLink } from 'react-router';
import Link from '@mui/material/Link';
import MailOutline from '@mui/icons-material/MailOutline';
import { useDevMailboxAvailable } from '@/lib/dev-mailbox';

export const DEV_MAILBOX_PATH = '/DevMailbox';

/** A discreet link to the demo outbox, shown only when the server runs in demo mode. */
export function DevMailboxLink() {
  const available = useDevMailboxAvailable();
  if (!available) return null;
  return (
    <Link
      component={RouterLink}
      to={DEV_MAILBOX_PATH}
      variant="caption"
      color="text.secondary"
      data-testid="dev-mailbox-link"
      sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5, alignSelf: 'flex-end' }}
    >
      <MailOutline sx={{ fontSize: 14 }} aria-hidden />
      Demo mailbox
    </Link>
  );
}
