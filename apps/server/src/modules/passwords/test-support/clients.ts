import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Db } from '../../../db/client';
import { TestClient, signIn } from '../../../test/fixtures';

let ipCounter = 0;

/** A fresh client address, so per-IP rate limits of one test do not spill into the next. */
export function nextIp(): string {
  ipCounter += 1;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

/** A TestClient whose requests all come from `ip`. */
export function clientAt(app: FastifyInstance, ip: string = nextIp()): TestClient {
  const fromIp = {
    inject: (options: InjectOptions) => app.inject({ ...options, remoteAddress: ip }),
  } as unknown as FastifyInstance;
  return new TestClient(fromIp);
}

export { markSecondFactorDone, sessionIdOf } from '../../../test/fixtures';

/** Signs in through the real login call, on its own address, and completes the second factor. */
export async function signedInClient(
  app: FastifyInstance,
  db: Db,
  account: { username: string; password: string },
) {
  return signIn(app, db, account, clientAt(app));
}
