import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { PRODUCT_NAME } from '@trialpulse/shared';

/** The product mark and name, linking home. */
export function Brand({ color = 'inherit' }: { color?: string }) {
  return (
    <Box
      component={RouterLink}
      to="/"
      data-testid="brand"
      sx={{ display: 'flex', alignItems: 'center', gap: 1, color, textDecoration: 'none' }}
    >
      <Box component="svg" viewBox="0 0 32 32" aria-hidden sx={{ width: 28, height: 28 }}>
        <rect width="32" height="32" rx="7" fill="currentColor" opacity="0.16" />
        <path
          d="M5 17h6l2.5-6 4 12 3-9 1.5 3H27"
          fill="none"
          stroke="currentColor"
          strokeWidth="2.4"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </Box>
      <Typography
        component="span"
        sx={{ fontWeight: 700, fontSize: '1.15rem', letterSpacing: 0.2 }}
      >
        {PRODUCT_NAME}
      </Typography>
    </Box>
  );
}
