import type { ReactNode } from 'react';
import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Container from '@mui/material/Container';
import Toolbar from '@mui/material/Toolbar';
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
      </Container>
      <Footer />
    </Box>
  );
}
