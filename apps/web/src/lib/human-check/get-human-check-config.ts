import { z } from 'zod';
import { api } from '@/lib/api-client';

/** Which human check the server verifies: Google's reCAPTCHA v3 or the self-hosted ALTCHA. */
export type HumanCheckConfig = { provider: 'altcha' | 'recaptcha'; siteKey: string | null };

const humanCheckConfigSchema = z.object({
  provider: z.enum(['altcha', 'recaptcha']),
  siteKey: z.string().min(1).nullable().catch(null),
});

/** The server accepts ALTCHA payloads whatever its provider, so it is the safe default. */
export const ALTCHA_ONLY: HumanCheckConfig = { provider: 'altcha', siteKey: null };

export const humanCheckConfigQueryKey = ['human-check-config'] as const;

/** `GET /api/humanCheck/config`; an unreadable or failed answer means ALTCHA. */
export async function getHumanCheckConfig(): Promise<HumanCheckConfig> {
  try {
    const parsed = humanCheckConfigSchema.safeParse(await api.get('/humanCheck/config'));
    return parsed.success ? parsed.data : ALTCHA_ONLY;
  } catch {
    return ALTCHA_ONLY;
  }
}
