import { eq } from 'drizzle-orm';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Db } from '../../../db/client';
import { sessions } from '../../../db/schema';
import { TestClient } from '../../../test/fixtures';
import { ACCESS_COOKIE } from '../../auth/session-tokens';

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

/** The session id in the client's access cookie. */
export function sessionIdOf(client: TestClient): string {
  const token = client.jar.get(ACCESS_COOKIE);
  if (!token) throw new Error('the client holds no access cookie');
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;
}

/** Marks the client's session as past the second factor (the SFA module's job in production). */
export async function markSecondFactorDone(db: Db, client: TestClient): Promise<void> {
  await db.update(sessions).set({ authStatus: 'Authorized' }).where(eq(sessions.id, sessionIdOf(client)));
}

/** Signs in through the real login call and completes the second factor. */
export async function signedInClient(app: FastifyInstance, db: Db, account: { username: string; password: string }) {
  const client = clientAt(app);
  const response = await client.login(account.username, account.password);
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
  await markSecondFactorDone(db, client);
  return client;
}
