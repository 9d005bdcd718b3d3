import { isRouteErrorResponse, useRouteError } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { MessagePage } from '@/components/ui/message-page';

/** Last resort when a page throws while rendering or its code fails to load. */
export function RouteErrorPage() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : null;
  return (
    <Box sx={{ p: 3 }}>
      <MessagePage title="Something went wrong" homeButton testId="route-error-page">
        <Typography color="text.secondary">
          {status ? `The page could not be shown (${status}). ` : 'The page could not be shown. '}
          Reloading usually helps; if it does not, please contact us.
        </Typography>
        <Button variant="outlined" onClick={() => window.location.reload()}>
          Reload
        </Button>
      </MessagePage>
    </Box>
  );
}
