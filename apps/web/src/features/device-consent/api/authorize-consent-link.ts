import { useMutation } from '@tanstack/react-query';
import {
  authorizeUrlResponseSchema,
  consentLinkAuthorizeSchema,
  type ConsentLinkAuthorizeRequest,
} from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export const authorizeConsentLinkInputSchema = consentLinkAuthorizeSchema;
export type AuthorizeConsentLinkInput = ConsentLinkAuthorizeRequest;

/**
 * Public `POST /api/consentLinkAuthorize`: trades an emailed consent link (participant id
 * and token) for the provider's consent URL. A wrong or expired link is refused with a
 * displayable message.
 */
export async function authorizeConsentLink(input: AuthorizeConsentLinkInput): Promise<string> {
  const answer = await api.post<unknown>('/consentLinkAuthorize', input);
  return authorizeUrlResponseSchema.parse(answer).authorizeUrl;
}

export function useAuthorizeConsentLink() {
  return useMutation({ mutationFn: authorizeConsentLink });
}
