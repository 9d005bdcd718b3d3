/**
 * Solves a challenge in a Web Worker when the browser allows one, else (no Worker, or the
 * worker could not start, e.g. blocked by a content security policy) on the page itself.
 */
export async function solveAltcha(challenge: unknown): Promise<string> {
  if (typeof Worker === 'undefined') return solveOnPage(challenge);
  try {
    return await solveInWorker(challenge);
  } catch (error) {
    if (error instanceof WorkerUnavailableError) return solveOnPage(challenge);
    throw error;
  }
}

/** The solver (altcha-lib) is loaded only when needed: the worker has its own copy. */
async function solveOnPage(challenge: unknown): Promise<string> {
  const { solveAltchaPayload } = await import('./altcha-pow');
  return solveAltchaPayload(challenge);
}

class WorkerUnavailableError extends Error {}

function solveInWorker(challenge: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    let worker: Worker;
    try {
      worker = new Worker(new URL('./altcha-worker.ts', import.meta.url), { type: 'module' });
    } catch {
      reject(new WorkerUnavailableError());
      return;
    }
    worker.onmessage = (event: MessageEvent<{ payload?: string; error?: string }>) => {
      worker.terminate();
      if (typeof event.data.payload === 'string') resolve(event.data.payload);
      else reject(new Error(event.data.error ?? 'The ALTCHA worker failed.'));
    };
    worker.onerror = () => {
      worker.terminate();
      reject(new WorkerUnavailableError());
    };
    worker.postMessage({ challenge });
  });
}
