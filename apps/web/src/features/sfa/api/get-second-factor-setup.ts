import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { useSession } from '@/lib/session';
import { SFA_TEXT } from '../sfa-constants';

export type SecondFactorSetup = { qrImage: string; key: string };

/** The server answered, but with a QR image or key the page must not show (spec §8). */
export class InvalidSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidSetupError';
  }
}

export const secondFactorSetupQueryKey = ['sfa', 'setup'] as const;

/**
 * `GET /api/auth/secondFactorSetup`: creates a new pending authenticator secret (the
 * session moves to SFAVerifyCodeNeeded). Throws `InvalidSetupError` with the spec's text
 * when the QR image is not an image data URL or the key is not base32.
 */
export async function getSecondFactorSetup(): Promise<SecondFactorSetup> {
  return readSetup(await api.get<unknown>('/auth/secondFactorSetup'));
}

/**
 * Every fetch creates a new secret and voids the one on screen, so the setup is fetched
 * once per visit: never stale, never retried or refetched, and without an abort signal
 * (StrictMode's unsubscribe/resubscribe would otherwise cancel and repeat the call).
 */
export function useSecondFactorSetup() {
  const { refresh } = useSession();
  return useQuery({
    queryKey: secondFactorSetupQueryKey,
    queryFn: async () => {
      const setup = await getSecondFactorSetup();
      // The status changed on the server; the guard must know before the user moves on.
      void refresh();
      return setup;
    },
    staleTime: Infinity,
    retry: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
}

const QR_IMAGE = /^data:image\/[a-z0-9.+-]+;base64,[a-z0-9+/]+=*$/i;
const BASE32_KEY = /^[A-Z2-7]+=*$/;

function readSetup(data: unknown): SecondFactorSetup {
  const raw = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  const { qrImage, key } = raw;
  if (typeof qrImage !== 'string' || !QR_IMAGE.test(qrImage)) {
    throw new InvalidSetupError(SFA_TEXT.invalidQr);
  }
  if (typeof key !== 'string' || !BASE32_KEY.test(key)) {
    throw new InvalidSetupError(SFA_TEXT.invalidKey);
  }
  return { qrImage, key };
}
