import { timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { GOOGLE_HEALTH_STREAMS } from './sources/google-health.source';
import type { SyncJobData } from './sync.jobs';
import type { SyncRunsRepository } from './sync.repository';

/** Puts a targeted sync of a connection on the queue (pg-boss in the running process). */
export type EnqueueSync = (data: SyncJobData) => Promise<unknown>;

export const GOOGLE_HEALTH_WEBHOOK_PATH = '/webhooks/google-health';
export const OMRON_WEBHOOK_PATH = '/webhooks/omron';

/**
 * Provider notifications (decision 0037). Outside /api: the callers are providers, not
 * browsers, so no session and no CSRF token; Google's deliveries are authenticated by the
 * `Authorization` secret registered with the subscriber. A notification only enqueues a
 * targeted sync of the connection (the payload holds no values); polling stays the fallback.
 */
export const syncWebhookRoutes: FastifyPluginAsync<{
  /** Which connections a provider's user id belongs to (sync's runs repository). */
  runs: Pick<SyncRunsRepository, 'connectionIdsOfProviderUser'>;
  googleSecret?: string;
  omronSecret?: string;
  enqueue?: EnqueueSync;
}> = async (app, options) => {
  const { runs } = options;
  /** Constant-time comparison; nothing matches a secret that is not configured. */
  const matcher = (secret: string | null) => {
    const expected = secret ? Buffer.from(secret) : null;
    return (given: unknown) => {
      if (!expected || typeof given !== 'string') return false;
      const bytes = Buffer.from(given);
      return bytes.length === expected.length && timingSafeEqual(bytes, expected);
    };
  };
  const authorised = matcher(options.googleSecret ? `Bearer ${options.googleSecret}` : null);
  const omronAuthorised = matcher(options.omronSecret ?? null);
  const streamKeys = new Set(GOOGLE_HEALTH_STREAMS.map((stream) => stream.key));
  const enqueue = async (
    upstream: 'google-health' | 'omron',
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

  app.post(GOOGLE_HEALTH_WEBHOOK_PATH, { schema: { hide: true } }, async (request, reply) => {
    // Verification without the secret must be refused (401) and so is any wrong secret.
    if (!authorised(request.headers.authorization))
      return reply.code(401).send({ error: 'unauthorized' });
    const body = request.body as unknown;
    if (body && typeof body === 'object' && (body as { type?: unknown }).type === 'verification')
      return reply.code(201).send();
    const items = Array.isArray(body) ? body : [body];
    for (const item of items) {
      const data = (item as { data?: { healthUserId?: unknown; dataType?: unknown } } | null)?.data;
      if (!data || typeof data.healthUserId !== 'string') continue;
      const dataType =
        typeof data.dataType === 'string' && streamKeys.has(data.dataType)
          ? data.dataType
          : undefined;
      // A type TrialPulse does not store needs no sync.
      if (typeof data.dataType === 'string' && !dataType) continue;
      await enqueue('google-health', data.healthUserId, dataType);
    }
    return reply.code(204).send();
  });

  // Omron documents no signature: the notification URI registered with Omron carries the
  // secret (`?token=`; query strings are not logged). Omron expects 200 with no body.
  app.post(OMRON_WEBHOOK_PATH, { schema: { hide: true } }, async (request, reply) => {
    if (!omronAuthorised((request.query as { token?: unknown } | undefined)?.token))
      return reply.code(401).send({ error: 'unauthorized' });
    const body = request.body as { id?: unknown; type?: unknown } | null;
    if (
      !body ||
      typeof body !== 'object' ||
      typeof body.id !== 'string' ||
      body.id.length === 0 ||
      body.id.length > 200
    ) {
      return reply.code(400).send({ error: 'invalid notification' });
    }
    const type = body.type === 'bloodpressure' || body.type === 'weight' ? body.type : undefined;
    // A type TrialPulse does not store (activity) needs no sync.
    if (body.type === undefined || type) await enqueue('omron', body.id, type);
    return reply.code(200).send();
  });
};
