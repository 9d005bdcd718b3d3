import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import ContentCopy from '@mui/icons-material/ContentCopy';
import { useNotify } from '@/components/notifications';
import type { SecondFactorSetup } from '../api/get-second-factor-setup';

/** The new secret as a QR image to scan and as a text key to type or copy. */
export function AuthenticatorSecret({ setup }: { setup: SecondFactorSetup }) {
  const notify = useNotify();

  const copyKey = async () => {
    try {
      await navigator.clipboard.writeText(setup.key);
      notify('Key copied to the clipboard.', 'success');
    } catch {
      notify('The key could not be copied. Please select and copy it by hand.', 'warning');
    }
  };

  return (
    <Stack spacing={2} sx={{ alignItems: 'center' }}>
      <Box
        component="img"
        src={setup.qrImage}
        alt="QR code for your authenticator app"
        data-testid="sfa-qr"
        sx={{ width: 200, height: 200, imageRendering: 'pixelated' }}
      />
      <Stack spacing={0.5} sx={{ width: '100%' }}>
        <Typography variant="body2" color="text.secondary">
          Can&apos;t scan? Enter this key in the app instead:
        </Typography>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Typography
            component="code"
            data-testid="sfa-key"
            sx={{
              flexGrow: 1,
              fontFamily: 'monospace',
              fontSize: '0.95rem',
              wordBreak: 'break-all',
              p: 1,
              borderRadius: 1,
              bgcolor: 'action.hover',
            }}
          >
            {setup.key}
          </Typography>
          <Tooltip title="Copy key">
            <IconButton
              aria-label="Copy key"
              data-testid="sfa-copy-key"
              onClick={() => void copyKey()}
            >
              <ContentCopy fontSize="small" />
            </IconButton>
          </Tooltip>
        </Stack>
      </Stack>
    </Stack>
  );
}
