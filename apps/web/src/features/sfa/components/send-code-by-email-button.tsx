import { useNavigate } from 'react-router';
import Button from '@mui/material/Button';
import MailOutline from '@mui/icons-material/MailOutline';
import { SFA_PATHS } from '../sfa-constants';

/** To the emailed-code page, which sends a code as soon as it opens. */
export function SendCodeByEmailButton() {
  const navigate = useNavigate();
  return (
    <Button
      variant="outlined"
      startIcon={<MailOutline />}
      data-testid="sfa-send-email"
      onClick={() => void navigate(SFA_PATHS.sendCode)}
    >
      Send code by email
    </Button>
  );
}
