import { useState, type MouseEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import Avatar from '@mui/material/Avatar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Divider from '@mui/material/Divider';
import ListItemIcon from '@mui/material/ListItemIcon';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import Typography from '@mui/material/Typography';
import { visuallyHidden } from '@mui/utils';
import KeyOutlined from '@mui/icons-material/KeyOutlined';
import Logout from '@mui/icons-material/Logout';
import { PATHS } from '@trialpulse/shared';
import { displayName, useSignOut, type SessionUser } from '@/lib/session';

/** Name, username, team and role of the signed-in user, Change Password and Logout. */
export function ProfileMenu({ user, compact = false }: { user: SessionUser; compact?: boolean }) {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const signOut = useSignOut();
  const name = displayName(user);
  const close = () => setAnchor(null);

  return (
    <>
      <Button
        color="inherit"
        data-testid="profile-menu-button"
        aria-haspopup="menu"
        aria-controls={anchor ? 'profile-menu' : undefined}
        aria-expanded={anchor ? 'true' : undefined}
        onClick={(event: MouseEvent<HTMLElement>) => setAnchor(event.currentTarget)}
        sx={{ gap: 1, px: 1 }}
      >
        {/* White disc, dark initials: 11:1 (primary.light behind light text had 3.7:1). */}
        <Avatar
          aria-hidden
          sx={{
            width: 32,
            height: 32,
            bgcolor: 'common.white',
            color: 'primary.dark',
            fontSize: '0.9rem',
            fontWeight: 600,
          }}
        >
          {initials(user)}
        </Avatar>
        {/* The button's name is the user's name, as shown (WCAG 2.5.3, label in name: a
            speech user says what they see; an aria-label "Profile menu" differed from it).
            A phone shows the initials only; the name is still there for assistive tech. */}
        <Box component="span" sx={compact ? visuallyHidden : undefined}>
          {name}
        </Box>
      </Button>
      <Menu
        id="profile-menu"
        anchorEl={anchor}
        open={anchor !== null}
        onClose={close}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
        slotProps={{ paper: { sx: { minWidth: 260, mt: 0.5 } } }}
      >
        <Box sx={{ px: 2, py: 1.5 }} data-testid="profile-details">
          <Typography sx={{ fontWeight: 600 }} data-testid="profile-name">
            {name}
          </Typography>
          <ProfileDetail label="Username" value={user.username} testId="profile-username" />
          <ProfileDetail
            label="Team"
            value={user.team_name ?? 'No team selected'}
            testId="profile-team"
          />
          <ProfileDetail label="Role" value={user.role ?? ''} testId="profile-role" />
        </Box>
        <Divider />
        <MenuItem
          component={RouterLink}
          to={PATHS.changePassword}
          onClick={close}
          data-testid="profile-change-password"
        >
          <ListItemIcon>
            <KeyOutlined fontSize="small" />
          </ListItemIcon>
          Change Password
        </MenuItem>
        <MenuItem
          data-testid="profile-logout"
          onClick={() => {
            close();
            void signOut();
          }}
        >
          <ListItemIcon>
            <Logout fontSize="small" />
          </ListItemIcon>
          Logout
        </MenuItem>
      </Menu>
    </>
  );
}

function ProfileDetail({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Typography variant="body2" color="text.secondary">
      {label}: <span data-testid={testId}>{value}</span>
    </Typography>
  );
}

function initials(user: SessionUser): string {
  const letters = `${user.first_name.charAt(0)}${user.last_name.charAt(0)}`.trim();
  return (letters || user.username.charAt(0) || '?').toUpperCase();
}
