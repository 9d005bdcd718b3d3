/**
 * The simulated Omron users. Each account's id is its Omron user id: the `sub` of its ID
 * token and the `id` of its upload notifications. All data is seeded by that id.
 */
export type OmronAccount = {
  id: string;
  name: string;
  description: string;
  timeZone: string;
  /** First local day with data (YYYY-MM-DD); moved earlier if "now" needs 400+ days. */
  dataStart: string;
  bloodPressure: {
    device: string;
    systolic: number;
    diastolic: number;
    pulse: number;
    /** Day-to-day spread of systolic readings (mmHg). */
    spread: number;
    /** Amplitude (mmHg) of a slow months-long drift, e.g. treatment effect. */
    drift: number;
    morningChance: number;
    eveningChance: number;
    /** Readings per session (1..n, about a minute apart). */
    maxReadings: number;
    /** Devices with irregular-heartbeat detection report `possibleAfib`. */
    afibDetection?: { chance: number };
  };
  weight?: { device: string; kg: number; heightM: number; bodyFat: number; chance: number };
  activity?: { device: string; steps: number; strideM: number };
  /** Blocks of days during which the user took no measurements at all. */
  gaps?: { blockDays: number; chance: number };
  /** `periodic`: the app syncs only every few days, so data shows up days late. */
  sync: 'immediate' | 'periodic';
};

export const OMRON_ACCOUNTS: OmronAccount[] = [
  {
    id: '5f1c2a9e-6d4b-4c1f-9a8e-1b2c3d4e5f01',
    name: 'Maria Lopez',
    description:
      'Normal blood pressure; BP monitor, scale and activity tracker; measures twice a day.',
    timeZone: 'America/New_York',
    dataStart: '2024-03-04',
    bloodPressure: {
      device: 'HEM-7600T',
      systolic: 117,
      diastolic: 75,
      pulse: 66,
      spread: 6,
      drift: 2,
      morningChance: 0.9,
      eveningChance: 0.65,
      maxReadings: 2,
    },
    weight: { device: 'HBF-702T', kg: 64.5, heightM: 1.65, bodyFat: 27, chance: 0.75 },
    activity: { device: 'HJA-405T', steps: 8200, strideM: 0.68 },
    sync: 'immediate',
  },
  {
    id: '5f1c2a9e-6d4b-4c1f-9a8e-1b2c3d4e5f02',
    name: 'James Carter',
    description: 'Stage 2 hypertension under treatment (slowly improving); BP monitor and scale.',
    timeZone: 'America/Chicago',
    dataStart: '2024-01-15',
    bloodPressure: {
      device: 'HEM-7342T',
      systolic: 152,
      diastolic: 95,
      pulse: 74,
      spread: 9,
      drift: 8,
      morningChance: 0.85,
      eveningChance: 0.8,
      maxReadings: 3,
    },
    weight: { device: 'HN-290T', kg: 97.2, heightM: 1.8, bodyFat: 31, chance: 0.3 },
    sync: 'immediate',
  },
  {
    id: '5f1c2a9e-6d4b-4c1f-9a8e-1b2c3d4e5f03',
    name: 'Aiko Tanaka',
    description:
      'Elevated / stage 1 hypertension; device with AFib detection (some readings flagged).',
    timeZone: 'America/Los_Angeles',
    dataStart: '2024-05-20',
    bloodPressure: {
      device: 'BP7900',
      systolic: 134,
      diastolic: 84,
      pulse: 71,
      spread: 8,
      drift: 4,
      morningChance: 0.8,
      eveningChance: 0.5,
      maxReadings: 2,
      afibDetection: { chance: 0.06 },
    },
    activity: { device: 'HJA-405T', steps: 6100, strideM: 0.64 },
    sync: 'immediate',
  },
  {
    id: '5f1c2a9e-6d4b-4c1f-9a8e-1b2c3d4e5f04',
    name: 'Robert Miller',
    description:
      'Normal blood pressure; measures irregularly with weeks-long gaps (monitor not used).',
    timeZone: 'America/Denver',
    dataStart: '2024-02-10',
    bloodPressure: {
      device: 'HEM-7600T',
      systolic: 124,
      diastolic: 79,
      pulse: 62,
      spread: 7,
      drift: 3,
      morningChance: 0.6,
      eveningChance: 0.3,
      maxReadings: 2,
    },
    weight: { device: 'HBF-702T', kg: 82.1, heightM: 1.77, bodyFat: 22, chance: 0.4 },
    gaps: { blockDays: 9, chance: 0.4 },
    sync: 'immediate',
  },
  {
    id: '5f1c2a9e-6d4b-4c1f-9a8e-1b2c3d4e5f05',
    name: 'Linda Nguyen',
    description:
      'Stage 1 hypertension; the phone app syncs only every few days, so data arrives late.',
    timeZone: 'America/Phoenix',
    dataStart: '2024-04-01',
    bloodPressure: {
      device: 'HEM-7342T',
      systolic: 138,
      diastolic: 88,
      pulse: 77,
      spread: 8,
      drift: 5,
      morningChance: 0.85,
      eveningChance: 0.55,
      maxReadings: 2,
    },
    weight: { device: 'HN-290T', kg: 71.4, heightM: 1.6, bodyFat: 33, chance: 0.5 },
    activity: { device: 'HJA-405T', steps: 5200, strideM: 0.62 },
    sync: 'periodic',
  },
];

export function findOmronAccount(id: string): OmronAccount | undefined {
  return OMRON_ACCOUNTS.find((account) => account.id === id);
}
