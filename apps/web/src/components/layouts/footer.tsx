import { lazy, Suspense, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { PATHS, PRODUCT_NAME } from '@trialpulse/shared';
import { useAppVersion } from '@/lib/app-version';
import type { LegalDocument } from './legal-dialogs';

// Loaded when a document is first opened: the dialog is not on any page's first paint.
const LegalDialog = lazy(async () => ({ default: (await import('./legal-dialogs')).LegalDialog }));

/** On every page: privacy policy, terms and conditions, contact us, the year, the version. */
export function Footer() {
  const version = useAppVersion();
  const [document, setDocument] = useState<LegalDocument | null>(null);
  const [dialogLoaded, setDialogLoaded] = useState(false);
  const open = (which: LegalDocument) => {
    setDialogLoaded(true);
    setDocument(which);
  };
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
            onClick={() => open('privacy')}
          >
            Privacy Policy
          </Link>
          <Link
            component="button"
            type="button"
            variant="body2"
            data-testid="footer-terms"
            onClick={() => open('terms')}
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
      {dialogLoaded && (
        <Suspense fallback={null}>
          <LegalDialog document={document} onClose={() => setDocument(null)} />
        </Suspense>
      )}
    </Box>
  );
}
