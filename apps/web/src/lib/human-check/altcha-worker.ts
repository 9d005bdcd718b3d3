import { solveAltchaPayload } from './altcha-pow';

/** Worker entry: solves one challenge off the main thread so the page stays responsive. */
self.onmessage = async (event: MessageEvent<{ challenge: unknown }>) => {
  try {
    self.postMessage({ payload: await solveAltchaPayload(event.data.challenge) });
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
};
