/**
 * Webhook subscribers (facts §10): `POST /v4/projects/{projectNumber}/subscribers` registers
 * an endpoint with its `endpointAuthorization.secret`; the simulator verifies it as Google
 * does (a `{"type":"verification"}` POST with the secret must get 201, one without must get
 * 401 or 403) and marks it ACTIVE or UNVERIFIED. Notifications (AUTOMATIC policy: every
 * linked account) are POSTed with `Authorization: <secret>` for each subscribed data type
 * whenever new data has reached the simulator since the last check — the account's tracker
 * uploaded (trackerSyncedUntil moved on the simulated clock) — with the uploaded interval:
 * on a timer, or at once through `POST /__control/webhooks/check`. They carry no values:
 * the receiver fetches.
 * Not simulated: signatures (X-HEALTHAPI-SIGNATURE), MANUAL subscriptions, patch.
 */
import type { FastifyInstance } from 'fastify';
import type { SimulatedClock } from '../common/clock';
import { SIMULATED_ACCOUNTS } from '../common/accounts';
import type { OAuthStore } from '../common/oauth';
import { trackerSyncedUntil } from '../common/wearable-model';

type Subscriber = {
  name: string;
  endpointUri: string;
  secret: string;
  dataTypes: string[];
  state: 'UNVERIFIED' | 'ACTIVE' | 'INACTIVE';
  createTime: string;
};

export type WebhookDelivery = {
  at: string;
  uri: string;
  healthUserId: string;
  dataType: string;
  /** The interval of new data the notification announced. */
  interval: { startTime: string; endTime: string };
  status: number | null;
  error?: string;
};

export type GoogleWebhooks = ReturnType<typeof registerGoogleWebhooks>;

export function registerGoogleWebhooks(
  app: FastifyInstance,
  deps: { clock: SimulatedClock; oauth: OAuthStore; checkIntervalMs?: number },
) {
  const subscribers = new Map<string, Subscriber>();
  const deliveries: WebhookDelivery[] = [];
  let lastChecked = deps.clock.nowMs();
  let pending: Promise<unknown> = Promise.resolve();

  const post = (uri: string, body: unknown, authorization?: string) =>
    fetch(uri, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization && { authorization }) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });

  async function verify(subscriber: Subscriber): Promise<boolean> {
    try {
      const withSecret = await post(
        subscriber.endpointUri,
        { type: 'verification' },
        subscriber.secret,
      );
      await withSecret.body?.cancel();
      const without = await post(subscriber.endpointUri, { type: 'verification' });
      await without.body?.cancel();
      return withSecret.status === 201 && (without.status === 401 || without.status === 403);
    } catch {
      return false;
    }
  }

  const present = (subscriber: Subscriber) => ({
    name: subscriber.name,
    endpointUri: subscriber.endpointUri,
    endpointAuthorization: { secretSet: true },
    subscriberConfigs: [{ dataTypes: subscriber.dataTypes, subscriptionCreatePolicy: 'AUTOMATIC' }],
    state: subscriber.state,
    createTime: subscriber.createTime,
    updateTime: subscriber.createTime,
  });

  app.post('/v4/projects/:project/subscribers', async (request, reply) => {
    const { project } = request.params as { project: string };
    const { subscriberId } = request.query as { subscriberId?: string };
    const body = request.body as {
      endpointUri?: string;
      endpointAuthorization?: { secret?: string };
      subscriberConfigs?: Array<{ dataTypes?: string[] }>;
    };
    if (!/^\d+$/.test(project))
      return reply.code(400).send({
        error: {
          code: 400,
          message: 'Invalid project number in resource name',
          status: 'INVALID_ARGUMENT',
        },
      });
    if (
      !subscriberId ||
      !/^[a-z]([a-z0-9-]{2,34}[a-z0-9])$/.test(subscriberId) ||
      !body?.endpointUri ||
      !body.endpointAuthorization?.secret
    ) {
      return reply
        .code(400)
        .send({ error: { code: 400, message: 'Invalid subscriber.', status: 'INVALID_ARGUMENT' } });
    }
    const subscriber: Subscriber = {
      name: `projects/${project}/subscribers/${subscriberId}`,
      endpointUri: body.endpointUri,
      secret: body.endpointAuthorization.secret,
      dataTypes: (body.subscriberConfigs ?? []).flatMap((config) => config.dataTypes ?? []),
      state: 'UNVERIFIED',
      createTime: deps.clock.now().toISOString(),
    };
    subscriber.state = (await verify(subscriber)) ? 'ACTIVE' : 'UNVERIFIED';
    subscribers.set(subscriber.name, subscriber);
    return {
      name: `operations/${subscriberId}`,
      done: true,
      response: {
        '@type': 'type.googleapis.com/google.devicesandservices.health.v4.Subscriber',
        ...present(subscriber),
      },
    };
  });

  app.get('/v4/projects/:project/subscribers', async () => {
    const list = [...subscribers.values()].map(present);
    return { subscribers: list, totalSize: list.length };
  });

  app.delete('/v4/projects/:project/subscribers/:id', async (request) => {
    const { project, id } = request.params as { project: string; id: string };
    subscribers.delete(`projects/${project}/subscribers/${id}`);
    return {};
  });

  function check(from: number, to: number) {
    if (to <= from) return;
    const linked = new Set(deps.oauth.linkedAccountIds());
    for (const subscriber of subscribers.values()) {
      if (subscriber.state !== 'ACTIVE') continue;
      for (const account of SIMULATED_ACCOUNTS) {
        if (!linked.has(account.id) || !account.healthUserId) continue;
        // Only new data is announced: what the tracker uploaded between the two checks.
        const uploadedFrom = trackerSyncedUntil(account, from);
        const uploadedTo = trackerSyncedUntil(account, to);
        if (uploadedTo <= uploadedFrom) continue;
        const span = {
          startTime: new Date(uploadedFrom).toISOString(),
          endTime: new Date(uploadedTo).toISOString(),
        };
        const interval = { physicalTimeInterval: span };
        for (const dataType of subscriber.dataTypes) {
          const body = {
            data: {
              version: '1',
              clientProvidedSubscriptionName: subscriber.name,
              healthUserId: account.healthUserId,
              operation: 'UPSERT',
              dataType,
              intervals: [interval],
            },
          };
          pending = pending.then(async () => {
            const entry: WebhookDelivery = {
              at: deps.clock.now().toISOString(),
              uri: subscriber.endpointUri,
              healthUserId: account.healthUserId,
              dataType,
              interval: span,
              status: null,
            };
            try {
              const response = await post(subscriber.endpointUri, body, subscriber.secret);
              entry.status = response.status;
              await response.body?.cancel();
            } catch (error) {
              entry.error = (error as Error).message;
            }
            deliveries.push(entry);
            if (deliveries.length > 500) deliveries.shift();
          });
        }
      }
    }
  }

  function checkNow() {
    const now = deps.clock.nowMs();
    check(lastChecked, now);
    lastChecked = now;
    return pending.then(() => deliveries.map((entry) => ({ ...entry })));
  }

  app.post('/__control/webhooks/check', async () => ({ deliveries: await checkNow() }));
  app.get('/__control/webhooks', async () => ({
    subscribers: [...subscribers.values()].map(present),
    deliveries,
  }));

  const timer = setInterval(() => void checkNow(), deps.checkIntervalMs ?? 60_000);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
  return { checkNow, deliveries: () => deliveries.map((entry) => ({ ...entry })) };
}
