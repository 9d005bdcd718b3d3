/**
 * Upload notifications. Omron POSTs `{"id":<user id>,"timestamp":<epoch ms>}` to the
 * partner's registered URI when a linked user uploads, and the partner then pulls
 * /measurement. Here "uploads" are the generated records whose upload time the simulator
 * clock passes, checked whenever this simulator's control moves the clock and on a timer
 * (which also catches a running clock, or a shared clock moved by another simulator).
 */
import type { OmronAccount } from './accounts';
import type { OmronData, OmronType } from './data';
import type { SimulatedClock } from '../common/clock';

export type NotificationDelivery = {
  at: string;
  uri: string;
  body: { id: string; timestamp: string; type: OmronType };
  /** HTTP status the partner answered, or null when the request failed. */
  status: number | null;
  error?: string;
};

export type NotifierOptions = {
  clock: SimulatedClock;
  data: OmronData;
  accounts: OmronAccount[];
  /** Accounts that currently have a live grant: only those get notifications. */
  linkedAccounts: () => string[];
  uri?: string;
  checkIntervalMs: number;
};

export function createNotifier(options: NotifierOptions) {
  let uri = options.uri ?? null;
  let lastChecked = options.clock.nowMs();
  let pending: Promise<unknown> = Promise.resolve();
  const deliveries: NotificationDelivery[] = [];

  async function deliver(body: NotificationDelivery['body']): Promise<NotificationDelivery> {
    const target = uri;
    const entry: NotificationDelivery = {
      at: new Date(options.clock.nowMs()).toISOString(),
      uri: target ?? '',
      body,
      status: null,
    };
    if (!target) {
      entry.error = 'no notification URI registered';
    } else {
      try {
        const response = await fetch(target, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(5000),
        });
        entry.status = response.status;
        await response.body?.cancel();
      } catch (error) {
        entry.error = (error as Error).message;
      }
    }
    deliveries.push(entry);
    if (deliveries.length > 500) deliveries.shift();
    return entry;
  }

  /** Sends one notification per (linked account, type) with uploads in (from, to]. */
  function check(from: number, to: number) {
    if (!uri || to <= from) return;
    const linked = new Set(options.linkedAccounts());
    for (const account of options.accounts) {
      if (!linked.has(account.id)) continue;
      const uploads = options.data.uploadsBetween(account, from, to);
      for (const type of uploads.types) {
        const body = { id: account.id, timestamp: String(uploads.latest), type };
        pending = pending.then(() => deliver(body));
      }
    }
  }

  function checkNow() {
    const now = options.clock.nowMs();
    check(lastChecked, now);
    lastChecked = now;
  }

  const timer = setInterval(checkNow, options.checkIntervalMs);
  timer.unref();

  return {
    setUri(value: string | null) {
      uri = value;
    },
    get uri() {
      return uri;
    },
    /** Sends a notification for an account right away, whether or not it has new data. */
    async trigger(
      accountId: string,
      type: OmronType = 'bloodpressure',
    ): Promise<NotificationDelivery> {
      const body = { id: accountId, timestamp: String(options.clock.nowMs()), type };
      const result = pending.then(() => deliver(body));
      pending = result;
      return result;
    },
    /** Looks for uploads since the last check and queues their notifications. */
    checkNow,
    /** Resolves when every queued notification has been delivered (or failed). */
    settled: () => pending.then(() => deliveries.map((d) => ({ ...d }))),
    deliveries: () => deliveries.map((d) => ({ ...d })),
    reset() {
      deliveries.length = 0;
      lastChecked = options.clock.nowMs();
    },
    close() {
      clearInterval(timer);
    },
  };
}

export type Notifier = ReturnType<typeof createNotifier>;
