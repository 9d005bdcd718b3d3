// `npm run simulators`: all four provider simulators on fixed ports, until Ctrl+C.
import { startAllSimulators } from './index';

const basePort = Number(process.env.SIMULATOR_BASE_PORT ?? 4100);
const keepFitbitLegacy = process.env.FITBIT_LEGACY_SHUTDOWN === 'never';

const simulators = await startAllSimulators({
  basePort,
  host: process.env.SIMULATOR_HOST ?? '127.0.0.1',
  ...(keepFitbitLegacy ? { fitbitLegacyShutdownAt: null } : {}),
});
const rows = [
  ['Google Health API (Fitbit)', simulators.googleHealth.baseUrl],
  [
    `Legacy Fitbit Web API${keepFitbitLegacy ? '' : ' (shut down: 410 Gone; FITBIT_LEGACY_SHUTDOWN=never keeps it)'}`,
    simulators.fitbitLegacy.baseUrl,
  ],
  ['Omron', simulators.omron.baseUrl],
  ['Dexcom', simulators.dexcom.baseUrl],
];
process.stdout.write(
  [
    'Provider simulators (control API under /__control on each):',
    ...rows.map(([name, url]) => `  ${url}  ${name}`),
    '',
  ].join('\n'),
);
const stop = async () => {
  await simulators.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
