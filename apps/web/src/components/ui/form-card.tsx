import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

type FormCardProps = {
  title: string;
  subtitle?: ReactNode;
  children: ReactNode;
  testId?: string;
  maxWidth?: number;
};

/** The centred card of the account pages (login, passwords, sign-up, contact). */
export function FormCard({ title, subtitle, children, testId, maxWidth = 480 }: FormCardProps) {
  return (
    <Box sx={{ display: 'flex', justifyContent: 'center' }}>
      <Paper
        variant="outlined"
        data-testid={testId}
        sx={{ width: '100%', maxWidth, p: { xs: 3, sm: 5 } }}
      >
        <Stack spacing={3}>
          <div>
            <Typography variant="h1" component="h1">
              {title}
            </Typography>
            {subtitle && (
              <Typography color="text.secondary" sx={{ mt: 0.5 }}>
                {subtitle}
              </Typography>
            )}
          </div>
          {children}
        </Stack>
      </Paper>
    </Box>
  );
}
