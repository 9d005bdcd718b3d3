import { Link as RouterLink } from 'react-router';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { FormCard } from '@/components/ui/form-card';
import { VerifyCodeSection } from '../components/verify-code-section';
import { SFA_PATHS } from '../sfa-constants';

/** /SFAVerifyPage: finish a pending authenticator set-up; the user then signs in again. */
export function SfaVerifyPage() {
  return (
    <FormCard
      title="Verify your authenticator"
      subtitle="Enter the 6-digit code your authenticator app shows to finish the set-up. You will then be asked to log in again."
      testId="sfa-verify-page"
    >
      <VerifyCodeSection />
      <Typography variant="body2" color="text.secondary">
        Lost the QR code?{' '}
        <Link component={RouterLink} to={SFA_PATHS.setup} data-testid="sfa-back-to-setup">
          Back to the set-up page
        </Link>{' '}
        (it shows a new key; scan it again).
      </Typography>
    </FormCard>
  );
}
