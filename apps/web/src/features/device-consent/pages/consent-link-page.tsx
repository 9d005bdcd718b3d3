import { useState } from 'react';
import { useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { DEVICE_MESSAGES, type ConsentLinkBrand } from '@trialpulse/shared';
import { FormCard } from '@/components/ui/form-card';
import { isApiError } from '@/lib/api-client';
import {
  authorizeConsentLinkInputSchema,
  useAuthorizeConsentLink,
} from '../api/authorize-consent-link';
import { CanceledMessage } from '../components/canceled-message';
import { AUTHORIZATION_FALLBACK, BRAND_DATA } from '../utils/brand-texts';
import { deviceErrorMessage } from '../utils/device-error-message';
import { leaveForProvider } from '../utils/leave-for-provider';

/** /PAFitbitConsentPage?id={participantId}&token={token} (public). */
export function FitbitConsentPage() {
  return <ConsentLinkPage brand="Fitbit" />;
}

/** /OmronConsentPage?id={participantId}&token={token} (public). */
export function OmronConsentPage() {
  return <ConsentLinkPage brand="Omron" />;
}

/**
 * The page an emailed consent link opens: what the study team asks for, Authorize Access
 * (the server checks the link and answers the provider's consent URL, where the browser
 * goes) and Cancel. A link without its id or token, or one the server refuses, shows the
 * error instead of the buttons.
 */
export function ConsentLinkPage({ brand }: { brand: ConsentLinkBrand }) {
  const [searchParams] = useSearchParams();
  const input = authorizeConsentLinkInputSchema.safeParse({
    participantId: searchParams.get('id') ?? undefined,
    token: searchParams.get('token') ?? undefined,
    brand,
  });
  const authorize = useAuthorizeConsentLink();
  const [canceled, setCanceled] = useState(false);
  const [redirecting, setRedirecting] = useState(false);

  const handleAuthorize = async () => {
    if (!input.success) return;
    // mutateAsync, not mutate's callbacks: those are dropped if the page re-mounts while
    // the call runs, and the participant would be left waiting with nothing happening.
    const authorizeUrl = await authorize.mutateAsync(input.data).catch(() => undefined);
    if (!authorizeUrl) return; // the error shows from the mutation's state
    setRedirecting(true);
    leaveForProvider(authorizeUrl);
  };

  const error = input.success
    ? authorize.isError
      ? deviceErrorMessage(authorize.error, brand, AUTHORIZATION_FALLBACK[brand])
      : null
    : DEVICE_MESSAGES.consentLinkInvalid;
  const busy = authorize.isPending || redirecting;

  let content;
  if (canceled) {
    content = <CanceledMessage />;
  } else if (!input.success || isRefused(authorize.error)) {
    content = (
      <Alert severity="error" data-testid="consent-link-error">
        {error}
      </Alert>
    );
  } else {
    content = (
      <>
        {error && (
          <Alert severity="error" data-testid="consent-link-error">
            {error}
          </Alert>
        )}
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
          <Button
            variant="contained"
            size="large"
            onClick={() => void handleAuthorize()}
            disabled={busy}
            startIcon={busy ? <CircularProgress size={18} color="inherit" /> : undefined}
          >
            Authorize Access
          </Button>
          <Button variant="outlined" size="large" onClick={() => setCanceled(true)} disabled={busy}>
            Cancel
          </Button>
        </Stack>
      </>
    );
  }

  return (
    <FormCard title={`${brand} data access`} maxWidth={600} testId="consent-link-page">
      <Stack spacing={2}>
        <Typography>
          The study team of the clinical trial you take part in asks for your permission to access
          the data your {brand} account records ({BRAND_DATA[brand]}).
        </Typography>
        <Typography color="text.secondary">
          Select Authorize Access to sign in to {brand} and grant access, or Cancel if you do not
          agree.
        </Typography>
      </Stack>
      {content}
    </FormCard>
  );
}

/** A link the server refused will not work on a second try; network trouble or a 5xx may. */
function isRefused(error: unknown): boolean {
  return isApiError(error) && error.status >= 400 && error.status < 500 && error.status !== 429;
}
