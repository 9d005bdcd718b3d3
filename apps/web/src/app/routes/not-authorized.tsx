import Typography from '@mui/material/Typography';
import { MessagePage } from '@/components/ui/message-page';

export function NotAuthorizedPage() {
  return (
    <MessagePage title="403 Error - Not Authorized" homeButton testId="not-authorized-page">
      <Typography color="text.secondary">
        Your role does not give you access to that page.
      </Typography>
    </MessagePage>
  );
}
