import { Link as RouterLink } from 'react-router';
import Link from '@mui/material/Link';
import { z } from 'zod';
import { PATHS, type RoutePath } from '@trialpulse/shared';
import { signupInvitationSchema } from '../api/validate-signup-request';

export const SIGNUP_PATH: RoutePath = '/SignupPage';
export const SIGNUP_VALIDATION_PATH: RoutePath = '/SignupValidation';

/** Navigation state /SignupValidation hands to /SignupPage: the key and the invitation. */
export const signupPageStateSchema = signupInvitationSchema.extend({ token: z.string().min(1) });
export type SignupPageState = z.infer<typeof signupPageStateSchema>;

export function ContactUsLink() {
  return (
    <Link component={RouterLink} to={PATHS.contactUs} data-testid="signup-contact-link">
      Contact us to request an account
    </Link>
  );
}
