import { startDexcomSimulator } from './dexcom';
import { startFitbitLegacySimulator } from './fitbit-legacy';
import { startGoogleHealthSimulator } from './google-health';
import { startOmronSimulator } from './omron';

type Started<T extends (...args: never[]) => Promise<unknown>> = Awaited<ReturnType<T>>;
type Closable = { name: string; baseUrl: string; close(): Promise<void> };

export type AllSimulators = {
  googleHealth: Started<typeof startGoogleHealthSimulator>;
  fitbitLegacy: Started<typeof startFitbitLegacySimulator>;
  omron: Started<typeof startOmronSimulator>;
  dexcom: Started<typeof startDexcomSimulator>;
  close(): Promise<void>;
};

export type StartAllOptions = {
  host?: string;
  /** Google Health on basePort, legacy Fitbit +1, Omron +2, Dexcom +3; 0 → free ports. */
  basePort?: number;
  /**
   * When the legacy Fitbit Web API stops answering (410 Gone). Default: Google's real
   * shutdown date, already past, as in production; null keeps it answering.
   */
  fitbitLegacyShutdownAt?: Date | null;
};

/** Starts all four provider simulators, for demo mode, tests and `npm run simulators`. */
export async function startAllSimulators(options: StartAllOptions = {}): Promise<AllSimulators> {
  const host = options.host ?? '127.0.0.1';
  const port = (offset: number) => (options.basePort ? options.basePort + offset : 0);
  const started: Closable[] = [];
  try {
    const googleHealth = await startGoogleHealthSimulator({ host, port: port(0) });
    started.push(googleHealth);
    const fitbitLegacy = await startFitbitLegacySimulator({
      host,
      port: port(1),
      ...(options.fitbitLegacyShutdownAt === undefined
        ? {}
        : { shutdownAt: options.fitbitLegacyShutdownAt }),
    });
    started.push(fitbitLegacy);
    const omron = await startOmronSimulator({ host, port: port(2) });
    started.push(omron);
    const dexcom = await startDexcomSimulator({ host, port: port(3) });
    started.push(dexcom);
    return {
      googleHealth,
      fitbitLegacy,
      omron,
      dexcom,
      close: async () => {
        await Promise.all(started.map((simulator) => simulator.close()));
      },
    };
  } catch (error) {
    await Promise.all(started.map((simulator) => simulator.close()));
    throw error;
  }
}
