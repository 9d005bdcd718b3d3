/**
 * The ceiling of the fast-paths bench on this machine (decision 0110): a bare Fastify server
 * with one route that answers at once and two that first make one or two trivial prepared
 * PostgreSQL round trips (`SELECT $1::int`) on a pool of 10, as the app's pool. No cookies,
 * helmet, logging or compression: what any call that reads the database at all costs more
 * than one that does not. Listens on a free port and writes `{ baseUrl }` to BENCH_READY_FILE.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import pg from 'pg';

const databaseUrl = process.env.BENCH_DATABASE_URL;
const readyFile = process.env.BENCH_READY_FILE;
if (!databaseUrl || !readyFile)
  throw new Error('BENCH_DATABASE_URL and BENCH_READY_FILE are required');

const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
const trivial = (n: number) =>
  pool.query({ name: 'floor_select', text: 'SELECT $1::int AS n', values: [n] });

const app = Fastify();
app.get('/bare', async () => ({ version: '0' }));
app.get('/one', async () => ({ version: '0', n: (await trivial(1)).rows[0].n }));
app.get('/two', async () => {
  await trivial(1);
  return { version: '0', n: (await trivial(2)).rows[0].n };
});
await app.listen({ port: 0, host: '127.0.0.1' });
const { port } = app.server.address() as AddressInfo;
fs.writeFileSync(readyFile, JSON.stringify({ baseUrl: `http://127.0.0.1:${port}` }));
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0));
});
