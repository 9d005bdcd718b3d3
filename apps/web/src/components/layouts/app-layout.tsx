import type { ReactNode } from 'react';
import { useNavigation } from 'react-router';
import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import LinearProgress from '@mui/material/LinearProgress';
import { Footer } from './footer';
import { Navbar } from './navbar';

/** Signed-in staff pages: navbar, content, footer. */
export function AppLayout({ children }: { children: ReactNode }) {
  const navigation = useNavigation();
  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column' }}>
      <Navbar />
      <Box sx={{ height: 3 }}>
        {navigation.state !== 'idle' && <LinearProgress aria-label="Loading page" />}
      </Box>
      <Container component="main" maxWidth="xl" sx={{ flexGrow: 1, py: { xs: 2, sm: 4 } }}>
        {children}
      </Container>
      <Footer />
    </Box>
  );
}
