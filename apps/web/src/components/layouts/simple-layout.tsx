import type { ReactNode } from 'react';
import { useLocation } from 'react-router';
import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Container from '@mui/material/Container';
import Toolbar from '@mui/material/Toolbar';
import { SFA_PAGE_BY_STATUS } from '@trialpulse/shared';
import { DevMailboxLink } from '@/components/dev-mailbox-link';
import { Brand } from '@/components/ui/brand';
import { useSession, useSignOut } from '@/lib/session';
import { Footer } from './footer';

/**
 * Public pages, second-factor pages and the no-role page: the brand, a Log out button when
 * a (partial) session exists, content, footer.
 */
export function SimpleLayout({ children }: { children: ReactNode }) {
  const { session } = useSession();
  const signOut = useSignOut();
  const { pathname } = useLocation();
  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column' }}>
      <AppBar
        position="static"
        color="inherit"
        data-testid="public-header"
        sx={{ borderBottom: 1, borderColor: 'divider' }}
      >
        <Toolbar sx={{ minHeight: { xs: 60 } }}>
          <Brand color="primary.main" />
          <Box sx={{ flexGrow: 1 }} />
          {session.status !== 'signed-out' && (
            <Button onClick={() => void signOut()} data-testid="simple-logout">
              Log out
            </Button>
          )}
        </Toolbar>
      </AppBar>
      <Container component="main" maxWidth="lg" sx={{ flexGrow: 1, py: { xs: 3, sm: 6 } }}>
        {children}
        {SECOND_FACTOR_PAGES.has(pathname) && (
          <Box sx={{ display: 'flex', justifyContent: 'center', mt: 2 }}>
            <DevMailboxLink />
          </Box>
        )}
      </Container>
      <Footer />
    </Box>
  );
}

/** The emailed second-factor code can be read in the demo mailbox from these pages. */
const SECOND_FACTOR_PAGES = new Set<string>(Object.values(SFA_PAGE_BY_STATUS));
