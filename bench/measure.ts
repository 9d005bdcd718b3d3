import { performance } from 'node:perf_hooks';

/**
 * Runs `call` sequentially (after a warm-up) and prints requests per second, p50/p95/p99
 * latency and heap growth. Throws on an HTTP error: a benchmark of failures measures nothing.
 */
export async function measure(
  name: string,
  iterations: number,
  call: () => Promise<{ statusCode: number }>,
): Promise<void> {
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
  const at = (q: number) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))]!.toFixed(2);
  console.log(
    `${name.padEnd(42)} ${(iterations / (total / 1000)).toFixed(0).padStart(6)} req/s  p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  p99 ${at(0.99)} ms  heap Δ${((process.memoryUsage().heapUsed - heapBefore) / 1e6).toFixed(1)} MB`,
  );
}
