// Hashes of the data calls' answers for the demo's linked accounts (issue #27: "the demo
// answers the same data"), to compare before and after a change to the providers' code:
//   node --import tsx scripts/demo-data-hashes.ts > before.txt   (then after, and diff)
// Each demo link (simulators/demo-links.ts: participant, brand, simulated account) is synced
// by the real sync on a fixed instant, then every data call the store serves is asked stored
// and live; one line per call: `<sha256 of the stored answer> <sha256 of the live answer> <call>`,
// and a last line hashing them all. PGlite unless TEST_DATABASE_URL is set.
import { createHash } from 'node:crypto';
import { dexcomQueryString } from '@trialpulse/shared/device-data/device-data.schemas';
import { dataServicesFor, syncedAccount } from '../apps/server/src/providers/contract-support';
import { startSyncSimulators } from '../apps/server/src/modules/sync/test-support';
import { DEMO_DEVICE_LINKS } from '@trialpulse/provider-simulators/embedded';
import { createTestDatabase } from '../apps/server/src/test/test-database';

const NOW = new Date('2025-06-11T06:00:00Z');
const DAY = 86_400_000;
const date = (daysAgo: number) =>
  new Date(NOW.getTime() - daysAgo * DAY).toISOString().slice(0, 10);
// Three days of heart rate per Fitbit account keep the run to minutes.
const [START, END] = [date(3), date(1)];
const FITBIT_PATHS = [
  ...[
    'steps',
    'distance',
    'floors',
    'calories',
    'minutesLightlyActive',
    'minutesFairlyActive',
    'minutesVeryActive',
  ].map((resource) => `activities/${resource}/date/${START}/${END}.json`),
  `activities/heart/date/${END}/1d/1min.json`,
  `body/log/weight/date/${START}/${END}.json`,
  `body/log/fat/date/${START}/${END}.json`,
  `sleep/date/${START}/${END}.json`,
  `spo2/date/${START}/${END}.json`,
  `cardioscore/date/${START}/${END}.json`,
];
const FITBIT_METRICS = [
  'steps',
  'distance',
  'floors',
  'calories',
  'minutes_lightly_active',
  'minutes_fairly_active',
  'minutes_very_active',
  'heart_rate',
  'resting_heart_rate',
  'weight',
  'body_fat',
  'sleep_stages',
  'sleep_duration',
  'spo2',
  'vo2_max',
];
const METRICS = {
  Fitbit: FITBIT_METRICS,
  Omron: ['systolic', 'diastolic', 'pulse', 'weight', 'body_fat', 'bmi'],
  Dexcom: ['egv', 'egv_trend_rate', 'events', 'calibration'],
} as const;

const sha = (value: unknown) =>
  createHash('sha256')
    .update(JSON.stringify(value ?? null))
    .digest('hex');
/** An error answers as its status and message (a call without data is 404 both ways). */
const settle = (promise: Promise<unknown>) =>
  promise.then(
    (value) => value,
    (error: { statusCode?: number; message?: string }) => ({
      error: error.statusCode ?? 0,
      message: error.message,
    }),
  );

async function main() {
  const database = await createTestDatabase();
  const sims = await startSyncSimulators(NOW);
  const lines: string[] = [];
  try {
    for (const link of DEMO_DEVICE_LINKS) {
      const { teamId, participantId } = await syncedAccount(database, sims, {
        brand: link.brand,
        account: link.account,
        metrics: METRICS[link.brand],
        enrolledDaysAgo: link.brand === 'Fitbit' ? 4 : 40,
      });
      const { auth, meta, omronData, dexcomData, fitbitData } = dataServicesFor(
        database,
        sims,
        teamId,
      );
      const calls: Array<[string, (allowStored: boolean) => Promise<unknown>]> = [];
      if (link.brand === 'Fitbit') {
        for (const path of FITBIT_PATHS)
          calls.push([
            path,
            (allowStored) =>
              fitbitData.get(
                auth,
                participantId,
                'x@example.test',
                path,
                meta,
                {},
                { allowStored },
              ),
          ]);
      } else if (link.brand === 'Omron') {
        for (const queryStr of ['bloodpressure', 'weight'] as const) {
          const query = { queryStr, since: date(30), sortOrder: 'asc', limit: 20 } as const;
          calls.push([
            `omron ${queryStr}`,
            (allowStored) => omronData.data(auth, participantId, query, meta, { allowStored }),
          ]);
        }
      } else {
        const start = new Date(NOW.getTime() - 33 * DAY);
        const query = dexcomQueryString({ start, end: new Date(start.getTime() + 28 * DAY) });
        calls.push([
          `dexcom ${query}`,
          (allowStored) => dexcomData.data(auth, participantId, query, meta, { allowStored }),
        ]);
      }
      for (const [name, call] of calls) {
        // `source` says which path answered; the comparison is of the data.
        const strip = (answer: unknown) => {
          if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return answer;
          const { source: _source, ...rest } = answer as Record<string, unknown>;
          return rest;
        };
        const stored = strip(await settle(call(true)));
        const live = strip(await settle(call(false)));
        lines.push(
          `${sha(stored).slice(0, 16)} ${sha(live).slice(0, 16)} ${link.participantCode} ${link.brand} ${link.account} ${name}`,
        );
      }
    }
  } finally {
    await sims.close();
    await database.close();
  }
  for (const line of lines) console.log(line);
  console.log(`all ${sha(lines)}`);
}

await main();
