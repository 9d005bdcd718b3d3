import { useState, type MouseEvent } from 'react';
import { Link as RouterLink, useLocation } from 'react-router';
import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Divider from '@mui/material/Divider';
import IconButton from '@mui/material/IconButton';
import ListSubheader from '@mui/material/ListSubheader';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import Toolbar from '@mui/material/Toolbar';
import useMediaQuery from '@mui/material/useMediaQuery';
import { useTheme } from '@mui/material/styles';
import KeyboardArrowDown from '@mui/icons-material/KeyboardArrowDown';
import MenuIcon from '@mui/icons-material/Menu';
import { PATHS, decideRouteAccess, type RoutePath } from '@trialpulse/shared';
import { Brand } from '@/components/ui/brand';
import { useCan, useSession } from '@/lib/session';
import { ProfileMenu } from './profile-menu';

type NavEntry = { label: string; to: RoutePath; testId: string };

const SYS_ADMIN_ENTRIES: NavEntry[] = [
  { label: 'Device Metrics', to: PATHS.deviceMetricsManager, testId: 'nav-device-metrics' },
  { label: 'Database Info', to: PATHS.dbInfo, testId: 'nav-db-info' },
  // Team administration is the first tab of the database page.
  { label: 'Teams', to: PATHS.dbInfo, testId: 'nav-teams' },
];

/**
 * The staff navbar: Dashboard; Data Export for the roles that may open it; Data Management
 * and Pipeline Clients (decision 0240) for Sys_Admin and Admin; the Sys Admin menu for
 * Sys_Admin; the profile menu. Narrow screens fold the links into one menu.
 */
export function Navbar() {
  const { user, guardUser } = useSession();
  const theme = useTheme();
  const compact = useMediaQuery(theme.breakpoints.down('md'), { noSsr: true });
  const isSysAdmin = useCan('sysadmin.view');
  const showDataManagement = useCan('nav.dataManagement');
  const showPipelineClients = useCan('backendClient.manage');

  const links: NavEntry[] = [{ label: 'Dashboard', to: PATHS.home, testId: 'nav-dashboard' }];
  if (decideRouteAccess(PATHS.dataExport, guardUser).kind === 'allow') {
    links.push({ label: 'Data Export', to: PATHS.dataExport, testId: 'nav-data-export' });
  }
  if (showDataManagement) {
    links.push({
      label: 'Data Management',
      to: PATHS.teamDataRetention,
      testId: 'nav-data-management',
    });
  }
  if (showPipelineClients) {
    // Issue 31: the team's SMART Backend Services clients (decision 0240).
    links.push({
      label: 'Pipeline Clients',
      to: PATHS.teamBackendClients,
      testId: 'nav-pipeline-clients',
    });
  }

  return (
    <AppBar position="sticky" color="primary" data-testid="navbar">
      <Toolbar sx={{ gap: 1, minHeight: { xs: 60 } }}>
        {compact && (
          <CompactMenu links={links} sysAdminEntries={isSysAdmin ? SYS_ADMIN_ENTRIES : []} />
        )}
        <Box sx={{ mr: 3 }}>
          <Brand />
        </Box>
        {!compact && (
          <Box component="nav" aria-label="Main" sx={{ display: 'flex', gap: 0.5, flexGrow: 1 }}>
            {links.map((link) => (
              <NavButton key={link.to} entry={link} />
            ))}
            {isSysAdmin && <SysAdminMenu />}
          </Box>
        )}
        {compact && <Box sx={{ flexGrow: 1 }} />}
        {user && <ProfileMenu user={user} compact={compact} />}
      </Toolbar>
    </AppBar>
  );
}

function NavButton({ entry }: { entry: NavEntry }) {
  const { pathname } = useLocation();
  const active = pathname === entry.to;
  return (
    <Button
      component={RouterLink}
      to={entry.to}
      color="inherit"
      data-testid={entry.testId}
      aria-current={active ? 'page' : undefined}
      sx={{
        px: 1.5,
        opacity: active ? 1 : 0.85,
        bgcolor: active ? 'rgba(255,255,255,0.14)' : 'transparent',
        '&:hover': { bgcolor: 'rgba(255,255,255,0.2)', opacity: 1 },
      }}
    >
      {entry.label}
    </Button>
  );
}

function SysAdminMenu() {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const close = () => setAnchor(null);
  return (
    <>
      <Button
        color="inherit"
        data-testid="nav-sys-admin"
        aria-haspopup="menu"
        aria-controls={anchor ? 'sys-admin-menu' : undefined}
        aria-expanded={anchor ? 'true' : undefined}
        endIcon={<KeyboardArrowDown />}
        onClick={(event: MouseEvent<HTMLElement>) => setAnchor(event.currentTarget)}
        sx={{ px: 1.5, opacity: 0.85, '&:hover': { bgcolor: 'rgba(255,255,255,0.2)', opacity: 1 } }}
      >
        Sys Admin
      </Button>
      <Menu id="sys-admin-menu" anchorEl={anchor} open={anchor !== null} onClose={close}>
        {SYS_ADMIN_ENTRIES.map((entry) => (
          <MenuItem
            key={entry.testId}
            component={RouterLink}
            to={entry.to}
            onClick={close}
            data-testid={entry.testId}
          >
            {entry.label}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}

function CompactMenu({
  links,
  sysAdminEntries,
}: {
  links: NavEntry[];
  sysAdminEntries: NavEntry[];
}) {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const close = () => setAnchor(null);
  return (
    <>
      <IconButton
        color="inherit"
        edge="start"
        aria-label="Open navigation"
        data-testid="nav-compact-button"
        onClick={(event: MouseEvent<HTMLElement>) => setAnchor(event.currentTarget)}
      >
        <MenuIcon />
      </IconButton>
      <Menu anchorEl={anchor} open={anchor !== null} onClose={close}>
        {links.map((link) => (
          <MenuItem
            key={link.to}
            component={RouterLink}
            to={link.to}
            onClick={close}
            data-testid={link.testId}
          >
            {link.label}
          </MenuItem>
        ))}
        {sysAdminEntries.length > 0 && <Divider />}
        {sysAdminEntries.length > 0 && <ListSubheader>Sys Admin</ListSubheader>}
        {sysAdminEntries.map((entry) => (
          <MenuItem
            key={entry.testId}
            component={RouterLink}
            to={entry.to}
            onClick={close}
            data-testid={entry.testId}
          >
            {entry.label}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}
