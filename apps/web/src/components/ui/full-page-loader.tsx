import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';

export function FullPageLoader({ label = 'Loading' }: { label?: string }) {
  return (
    <Box
      data-testid="session-loading"
      role="status"
      aria-label={label}
      sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center' }}
    >
      <CircularProgress aria-hidden />
    </Box>
  );
}
