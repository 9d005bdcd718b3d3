import Alert from '@mui/material/Alert';
import { MessagePage } from '@/components/ui/message-page';

export function NoRolePage({ message }: { message: string }) {
  return (
    <MessagePage title="Access denied">
      <Alert severity="warning" data-testid="no-role-message" sx={{ textAlign: 'left' }}>
        {message}
      </Alert>
    </MessagePage>
  );
}
