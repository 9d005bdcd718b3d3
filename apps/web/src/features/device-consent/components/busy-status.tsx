import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';

/** A spinner that tells assistive technology what the page is waiting for. */
export function BusyStatus({ label }: { label: string }) {
  return (
    <Box role="status" aria-label={label} sx={{ textAlign: 'center', py: 2 }}>
      <CircularProgress aria-hidden />
    </Box>
  );
}
