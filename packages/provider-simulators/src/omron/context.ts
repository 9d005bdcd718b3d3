/** What the Omron routes share: built once per simulator instance in index.ts. */
import type { FastifyRequest } from 'fastify';
import type { OmronAccount } from './accounts';
import type { OmronData } from './data';
import type { SimulatedClock } from '../common/clock';
import type { FaultController } from '../common/faults';
import type { OAuthClientConfig } from '../common/types';
import type { AuthorizationStore } from '../common/signed-token-provider';
import type { FixedWindowRateLimiter } from '../common/rate-limit';
import type { IssuedTokens, TokenStore } from '../common/signed-tokens';

export type OmronContext = {
  clock: SimulatedClock;
  faults: FaultController;
  accounts: OmronAccount[];
  clients: OAuthClientConfig[];
  tokens: TokenStore;
  authorizations: AuthorizationStore;
  data: OmronData;
  rateLimit: FixedWindowRateLimiter;
  idTokenTtlSeconds: number;
  /** Issuer for ID tokens: the configured one, or the origin the request came to. */
  issuerFor(request?: FastifyRequest): string;
  /** The token endpoint's success body for freshly issued tokens. */
  tokenResponse(issued: IssuedTokens, issuer: string, nonce?: string): Record<string, unknown>;
};

export const OMRON_SCOPES = [
  'bloodpressure',
  'activity',
  'weight',
  'openid',
  'offline_access',
] as const;
export const DEFAULT_OMRON_SCOPE = 'bloodpressure activity weight openid offline_access';
