import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { PATHS, PRODUCT_NAME } from '@trialpulse/shared';
import { useAppVersion } from '@/lib/app-version';
import { LegalDialog, type LegalDocument } from './legal-dialogs';

/** On every page: privacy policy, terms and conditions, contact us, the year, the version. */
export function Footer() {
  const version = useAppVersion();
  const [document, setDocument] = useState<LegalDocument | null>(null);
  const year = new Date().getFullYear();

  return (
    <Box
      component="footer"
      data-testid="app-footer"
      sx={{
        mt: 'auto',
        borderTop: 1,
        borderColor: 'divider',
        bgcolor: 'background.paper',
        px: { xs: 2, sm: 4 },
        py: 2,
      }}
    >
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={{ xs: 1, sm: 3 }}
        sx={{ justifyContent: 'space-between', alignItems: { xs: 'flex-start', sm: 'center' } }}
      >
        <Stack
          direction="row"
          useFlexGap
          component="nav"
          aria-label="Footer"
          sx={{ flexWrap: 'wrap', columnGap: 3, rowGap: 0.5, '& > *': { whiteSpace: 'nowrap' } }}
        >
          <Link
            component="button"
            type="button"
            variant="body2"
            data-testid="footer-privacy"
            onClick={() => setDocument('privacy')}
          >
            Privacy Policy
          </Link>
          <Link
            component="button"
            type="button"
            variant="body2"
            data-testid="footer-terms"
            onClick={() => setDocument('terms')}
          >
            Terms and Conditions
          </Link>
          <Link
            component={RouterLink}
            to={PATHS.contactUs}
            variant="body2"
            data-testid="footer-contact"
          >
            Contact Us
          </Link>
        </Stack>
        <Typography variant="body2" color="text.secondary">
          © <span data-testid="footer-year">{year}</span> {PRODUCT_NAME}
          {version ? ' · ' : ''}
          <span data-testid="app-version">{version ? `v${version}` : ''}</span>
        </Typography>
      </Stack>
      <LegalDialog document={document} onClose={() => setDocument(null)} />
    </Box>
  );
}
