import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import dayjs from 'dayjs';
import type { DevMail } from '@/lib/dev-mailbox';
import { LinkifiedText } from './linkified-text';

export function MailCard({ mail }: { mail: DevMail }) {
  const body = mail.text ?? htmlToText(mail.html ?? '');
  const sentAt = dayjs(mail.createdAt);
  return (
    <Paper variant="outlined" component="article" data-testid="dev-mail" sx={{ p: 2.5 }}>
      <Stack spacing={1}>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
          <Typography variant="h2" component="h2" sx={{ fontSize: '1.1rem', flexGrow: 1 }}>
            {mail.subject || '(no subject)'}
          </Typography>
          {mail.status && <Chip size="small" label={mail.status} variant="outlined" />}
        </Stack>
        <Typography variant="body2" color="text.secondary">
          To <span data-testid="dev-mail-to">{mail.to}</span> ·{' '}
          <time dateTime={mail.createdAt}>
            {sentAt.isValid() ? sentAt.format('YYYY-MM-DD HH:mm:ss') : mail.createdAt}
          </time>
          {mail.template ? ` · ${mail.template}` : ''}
        </Typography>
        <Typography
          component="div"
          data-testid="dev-mail-body"
          sx={{ whiteSpace: 'pre-wrap', fontSize: '0.95rem' }}
        >
          <LinkifiedText text={body} />
        </Typography>
      </Stack>
    </Paper>
  );
}

/** Only the text of an HTML body (parsed, never rendered). */
function htmlToText(html: string): string {
  if (!html) return '';
  return new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '';
}
