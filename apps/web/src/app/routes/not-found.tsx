import Typography from '@mui/material/Typography';
import { MessagePage } from '@/components/ui/message-page';

export function NotFoundPage() {
  return (
    <MessagePage title="404 Error - page not found" homeButton testId="not-found-page">
      <Typography color="text.secondary">
        The address you followed does not lead to a page of this application.
      </Typography>
    </MessagePage>
  );
}
