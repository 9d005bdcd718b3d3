import { performance } from 'node:perf_hooks';

/**
 * Runs `call` sequentially (after a warm-up) and prints requests per second, p50/p95/p99
 * latency and heap growth. Throws on an HTTP error: a benchmark of failures measures nothing.
 */
export type Measured = { p50: number; p95: number; p99: number; perSecond: number };

export async function measure(
  name: string,
  iterations: number,
  call: () => Promise<{ statusCode: number }>,
): Promise<Measured> {
  for (let warm = 0; warm < 20; warm += 1) await call();
  const timings: number[] = [];
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  for (let index = 0; index < iterations; index += 1) {
    const begin = performance.now();
    const response = await call();
    timings.push(performance.now() - begin);
    if (response.statusCode >= 400) throw new Error(`${name}: HTTP ${response.statusCode}`);
  }
  const total = performance.now() - started;
  timings.sort((a, b) => a - b);
  const value = (q: number) =>
    timings[Math.min(timings.length - 1, Math.floor(q * timings.length))]!;
  const at = (q: number) => value(q).toFixed(2);
  const perSecond = iterations / (total / 1000);
  console.log(
    `${name.padEnd(42)} ${perSecond.toFixed(0).padStart(6)} req/s  p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  p99 ${at(0.99)} ms  heap Δ${((process.memoryUsage().heapUsed - heapBefore) / 1e6).toFixed(1)} MB`,
  );
  return { p50: value(0.5), p95: value(0.95), p99: value(0.99), perSecond };
}
