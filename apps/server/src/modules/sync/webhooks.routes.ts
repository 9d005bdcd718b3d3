import { timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config/env';
import { PROVIDER_PLUGINS } from '../../providers';
import type { ProviderUpstream } from '../devices/core/provider-client';
import type { SyncJobData } from './sync.jobs';
import type { SyncRunsRepository } from './sync.repository';

/** Puts a targeted sync of a connection on the queue (pg-boss in the running process). */
export type EnqueueSync = (data: SyncJobData) => Promise<unknown>;

/** Each webhook's secret from the environment, as its plugin reads it (app.ts passes them). */
export function webhookSecrets(config: Config): Partial<Record<ProviderUpstream, string>> {
  const secrets: Partial<Record<ProviderUpstream, string>> = {};
  for (const plugin of PROVIDER_PLUGINS) {
    const secret = plugin.webhook?.secret(config);
    if (secret) secrets[plugin.upstream] = secret;
  }
  return secrets;
}

/**
 * Provider notifications (decision 0037), one route per provider plugin with a webhook.
 * Outside /api: the callers are providers, not browsers, so no session and no CSRF token;
 * each delivery is authenticated by the secret registered with the provider (how it is sent,
 * and what a notification names, is the plugin's). A notification only enqueues a targeted
 * sync of the connection (the payload holds no values); polling stays the fallback.
 */
export const syncWebhookRoutes: FastifyPluginAsync<{
  /** Which connections a provider's user id belongs to (sync's runs repository). */
  runs: Pick<SyncRunsRepository, 'connectionIdsOfProviderUser'>;
  /** The secret per upstream (`webhookSecrets(config)`); an upstream without one refuses all. */
  secrets?: Partial<Record<ProviderUpstream, string>>;
  enqueue?: EnqueueSync;
}> = async (app, options) => {
  const { runs } = options;
  const secrets = options.secrets ?? {};
  /** Constant-time comparison; nothing matches a secret that is not configured. */
  const matcher = (secret: string | null) => {
    const expected = secret ? Buffer.from(secret) : null;
    return (given: unknown) => {
      if (!expected || typeof given !== 'string') return false;
      const bytes = Buffer.from(given);
      return bytes.length === expected.length && timingSafeEqual(bytes, expected);
    };
  };
  const enqueue = async (
    upstream: ProviderUpstream,
    providerUserId: string,
    stream: string | undefined,
  ) => {
    for (const connectionId of await runs.connectionIdsOfProviderUser(upstream, providerUserId)) {
      if (!options.enqueue) {
        app.log.warn(
          { connectionId },
          'webhook: no job queue in this process; polling will fetch the data',
        );
        continue;
      }
      await options.enqueue({
        connectionId,
        kind: 'webhook',
        ...(stream && { streams: [stream] }),
      });
    }
  };

  for (const plugin of PROVIDER_PLUGINS) {
    const webhook = plugin.webhook;
    if (!webhook) continue;
    const secret = secrets[plugin.upstream];
    const authorised = matcher(secret ? webhook.expected(secret) : null);
    app.post(webhook.path, { schema: { hide: true } }, async (request, reply) => {
      // Verification without the secret must be refused (401) and so is any wrong secret.
      if (!authorised(webhook.credential({ headers: request.headers, query: request.query })))
        return reply.code(401).send({ error: 'unauthorized' });
      const { status, reply: body, users } = webhook.notifications(request.body);
      for (const user of users) await enqueue(plugin.upstream, user.providerUserId, user.stream);
      return body === undefined ? reply.code(status).send() : reply.code(status).send(body);
    });
  }
};
