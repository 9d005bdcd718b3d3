/** What the Dexcom routes share: built once per simulator instance in index.ts. */
import type { SimulatedClock } from '../common/clock';
import type { FaultController } from '../common/faults';
import type { OAuthClientConfig } from '../common/types';
import type { DexcomAccount } from './accounts';
import type { DexcomData } from './data';
import type { AuthorizationStore } from '../common/signed-token-provider';
import type { FixedWindowRateLimiter } from '../common/rate-limit';
import type { TokenStore } from '../common/signed-tokens';

export type DexcomContext = {
  clock: SimulatedClock;
  faults: FaultController;
  accounts: DexcomAccount[];
  clients: OAuthClientConfig[];
  tokens: TokenStore;
  authorizations: AuthorizationStore;
  data: DexcomData;
  rateLimit: FixedWindowRateLimiter;
};
