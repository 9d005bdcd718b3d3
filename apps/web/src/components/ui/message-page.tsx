import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import HomeOutlined from '@mui/icons-material/HomeOutlined';

type MessagePageProps = {
  title: string;
  children?: ReactNode;
  homeButton?: boolean;
  testId?: string;
};

/** A centred card with a heading, text and optionally the button home (404, 403, no role). */
export function MessagePage({ title, children, homeButton = false, testId }: MessagePageProps) {
  return (
    <Paper
      variant="outlined"
      data-testid={testId}
      sx={{
        maxWidth: 640,
        mx: 'auto',
        mt: { xs: 2, sm: 6 },
        p: { xs: 3, sm: 5 },
        textAlign: 'center',
      }}
    >
      <Stack spacing={2} sx={{ alignItems: 'center' }}>
        <Typography variant="h1" component="h1">
          {title}
        </Typography>
        {children}
        {homeButton && (
          <Button
            component={RouterLink}
            to="/"
            variant="contained"
            startIcon={<HomeOutlined />}
            data-testid="go-home"
          >
            Go to home page
          </Button>
        )}
      </Stack>
    </Paper>
  );
}
