import { hash } from '@node-rs/argon2';
import { count, eq, sql } from 'drizzle-orm';
import type { Db } from '../client';
import {
  auditLog,
  credentials,
  deviceMetricSettings,
  globalDeviceCatalog,
  metricCatalog,
  participants,
  teamAllowedBrands,
  teamDeviceDataStorageSettings,
  teamSupportedDevices,
  teamUserMappings,
  teams,
  trialUsers,
  trials,
  users,
  type DeviceBrand,
  type DeviceType,
  type UserRole,
} from '../schema';

/**
 * Demo data created on the first start in demo mode: two teams, one account per role,
 * three trials with participants, the global device catalog, and a few storage settings
 * (the metric catalog itself is product data: see db/reference/metric-catalog.ts).
 * Passwords are public on purpose (printed at start); every account still sets up its
 * second factor on first sign-in.
 */

export type DemoAccount = {
  role: UserRole;
  /** The username is the e-mail address. */
  username: string;
  email: string;
  password: string;
  firstName: string;
  lastName: string;
};

export const DEMO_ACCOUNTS: readonly DemoAccount[] = [
  {
    role: 'Sys_Admin',
    username: 'sysadmin@demo.trialpulse.local',
    email: 'sysadmin@demo.trialpulse.local',
    password: 'Demo!Sys2026',
    firstName: 'Sam',
    lastName: 'Sysadmin',
  },
  {
    role: 'Admin',
    username: 'admin@demo.trialpulse.local',
    email: 'admin@demo.trialpulse.local',
    password: 'Demo!Admin2026',
    firstName: 'Alex',
    lastName: 'Admin',
  },
  {
    role: 'User',
    username: 'user@demo.trialpulse.local',
    email: 'user@demo.trialpulse.local',
    password: 'Demo!User2026',
    firstName: 'Uma',
    lastName: 'User',
  },
  {
    role: 'Viewer',
    username: 'viewer@demo.trialpulse.local',
    email: 'viewer@demo.trialpulse.local',
    password: 'Demo!View2026',
    firstName: 'Victor',
    lastName: 'Viewer',
  },
];

export const DEMO_TEAM_NAMES = {
  active: 'Demo Research Team',
  inactive: 'Archived Study Team',
} as const;

/** Global device catalog (device-data spec: names recognised by the UI are kept exactly). */
export const DEMO_DEVICE_CATALOG: readonly {
  manufacturer: DeviceBrand;
  /** Null: no metric catalog; the Device Metrics Manager shows its 'Device Settings' table. */
  deviceType: DeviceType | null;
  deviceName: string;
  context: string;
  description: string;
}[] = [
  {
    manufacturer: 'Fitbit',
    deviceType: 'TRACKER',
    deviceName: 'Fitbit Smartwatches & Trackers',
    context: 'Wrist-worn activity, heart-rate and sleep tracking',
    description:
      'Fitbit trackers and smartwatches (Charge, Inspire, Versa, Pixel Watch) through Google Health / Fitbit Web API',
  },
  {
    manufacturer: 'Fitbit',
    deviceType: 'TRACKER',
    deviceName: 'Fitbit Sense',
    context: 'Smartwatch with SpO2, skin temperature and stress sensors',
    description: 'Fitbit Sense and Sense 2 smartwatches',
  },
  {
    manufacturer: 'Fitbit',
    deviceType: 'SCALE',
    deviceName: 'Fitbit Aria scale',
    context: 'Wi-Fi smart scale',
    description: 'Fitbit Aria / Aria Air: weight, body fat and BMI',
  },
  {
    manufacturer: 'Omron',
    deviceType: 'OMRON_BP_MONITOR',
    deviceName: 'Omron blood-pressure monitor',
    context: 'Upper-arm home blood-pressure monitor',
    description: 'OMRON connect blood-pressure monitors: systolic, diastolic and pulse',
  },
  {
    manufacturer: 'Omron',
    deviceType: 'OMRON_SCALE',
    deviceName: 'Omron Scale',
    context: 'Body composition scale',
    description: 'OMRON connect scales: weight',
  },
  {
    manufacturer: 'Dexcom',
    deviceType: 'DEXCOM_CGM',
    deviceName: 'Dexcom G7 CGM',
    context: 'Continuous glucose monitor',
    description: 'Dexcom G7 continuous glucose monitoring through the Dexcom API v3',
  },
  {
    manufacturer: 'Omron',
    deviceType: null,
    deviceName: 'Omron manual readings',
    context: 'Readings typed in by staff',
    description: 'Readings entered by hand; no device type, so its metrics are set one by one',
  },
];

/** How long ago the demo participants were enrolled (sync backfills from enrolment). */
export const DEMO_ENROLMENT_DAYS_AGO = 90;

const DAY_MS = 24 * 60 * 60 * 1000;
/** Serialises concurrent first starts (two processes on one database). */
const SEED_LOCK_KEY = 7_344_210_001;

/**
 * Seeds the demo data in one transaction, only when the database has no team yet (so a
 * second start keeps whatever is there). Returns whether anything was written.
 */
export async function seedDemoData(db: Db, now: Date = new Date()): Promise<{ seeded: boolean }> {
  if (await hasTeams(db)) return { seeded: false };

  // Hash outside the transaction: argon2 takes a while and PGlite has a single connection.
  const passwordHashes = await Promise.all(DEMO_ACCOUNTS.map((account) => hash(account.password)));

  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${sql.raw(String(SEED_LOCK_KEY))})`);
    if (await hasTeams(tx)) return { seeded: false };

    const [activeTeam, inactiveTeam] = await tx
      .insert(teams)
      .values([
        {
          teamName: DEMO_TEAM_NAMES.active,
          isActive: true,
          subscriptionStarts: new Date(now.getTime() - 90 * DAY_MS),
          subscriptionEnds: new Date(now.getTime() + 365 * DAY_MS),
          subscriptionType: 'annual',
          maxUsers: 25,
          maxTrials: 25,
          maxParticipants: 200,
          teamAdminEmail: 'admin@demo.trialpulse.local',
          teamAdminPhone: '+1 555 0100',
          organization: 'TrialPulse Demo Research Institute',
          notes: 'Demo team created on first start.',
          monthlyRatePerParticipant: '12.50',
          retentionDays: 365,
          storageLocation: 'local',
          // One of the teams that sees participant e-mail and notes.
          hiddenFields: [],
        },
        {
          teamName: DEMO_TEAM_NAMES.inactive,
          isActive: false,
          subscriptionStarts: new Date(now.getTime() - 730 * DAY_MS),
          subscriptionEnds: new Date(now.getTime() - 30 * DAY_MS),
          subscriptionType: 'annual',
          maxUsers: 5,
          maxTrials: 2,
          maxParticipants: 20,
          teamAdminEmail: 'admin@demo.trialpulse.local',
          organization: 'TrialPulse Demo Research Institute',
          notes: 'Subscription expired: shows the inactive-team message.',
          monthlyRatePerParticipant: '10.00',
          retentionDays: 180,
          storageLocation: 'local',
          hiddenFields: ['email', 'notes'],
        },
      ])
      .returning({ id: teams.id });
    if (!activeTeam || !inactiveTeam) throw new Error('demo seed: teams were not created');

    const insertedUsers = await tx
      .insert(users)
      .values(
        DEMO_ACCOUNTS.map((account) => ({
          email: account.email.toLowerCase(),
          username: account.username,
          firstName: account.firstName,
          lastName: account.lastName,
          organization: 'TrialPulse Demo Research Institute',
          sfaRequired: true,
          sfaEnabled: false,
          createTime: now,
        })),
      )
      .returning({ id: users.id, email: users.email });
    const userIdByRole = new Map<UserRole, number>(
      DEMO_ACCOUNTS.map((account, index) => {
        const user = insertedUsers.find((row) => row.email === account.email.toLowerCase());
        if (!user) throw new Error(`demo seed: user ${index} was not created`);
        return [account.role, user.id];
      }),
    );
    const userId = (role: UserRole) => userIdByRole.get(role) as number;

    await tx.insert(credentials).values(
      DEMO_ACCOUNTS.map((account, index) => ({
        userId: userId(account.role),
        passwordHash: passwordHashes[index] as string,
        passwordChangedAt: now,
      })),
    );

    await tx.insert(teamUserMappings).values([
      ...DEMO_ACCOUNTS.map((account) => ({
        userId: userId(account.role),
        teamId: activeTeam.id,
        role: account.role,
        defaultTeam: true,
        lastSelectedTeam: true,
      })),
      { userId: userId('Sys_Admin'), teamId: inactiveTeam.id, role: 'Sys_Admin' as const },
      { userId: userId('Admin'), teamId: inactiveTeam.id, role: 'Admin' as const },
    ]);

    const insertedTrials = await tx
      .insert(trials)
      .values([
        {
          teamId: activeTeam.id,
          trialNumber: 'TP-2026-001',
          trialName: 'Sleep and Activity in Early Hypertension',
          trialNotes: 'Fitbit trackers and Omron blood-pressure monitors, 12 weeks.',
          trialCode: 'SLEEP',
          ownerUserId: userId('Admin'),
          creationDate: new Date(now.getTime() - 60 * DAY_MS),
        },
        {
          teamId: activeTeam.id,
          trialNumber: 'TP-2026-002',
          trialName: 'Glucose Variability in Type 2 Diabetes',
          trialNotes: 'Dexcom G7 continuous glucose monitoring with activity tracking.',
          trialCode: 'GLUCO',
          ownerUserId: userId('Admin'),
          creationDate: new Date(now.getTime() - 45 * DAY_MS),
        },
        {
          teamId: activeTeam.id,
          trialNumber: 'TP-2026-003',
          trialName: 'Home Weight Monitoring Pilot',
          trialNotes: 'Fitbit Aria and Omron scales.',
          trialCode: 'WEIGHT',
          ownerUserId: userId('Sys_Admin'),
          creationDate: new Date(now.getTime() - 30 * DAY_MS),
        },
      ])
      .returning({ id: trials.id, trialCode: trials.trialCode, ownerUserId: trials.ownerUserId });
    const trialByCode = new Map(insertedTrials.map((trial) => [trial.trialCode, trial]));
    const trialId = (code: string) => (trialByCode.get(code) as { id: number }).id;

    await tx.insert(trialUsers).values(
      insertedTrials.flatMap((trial) =>
        [...new Set([trial.ownerUserId, userId('User'), userId('Viewer')])].map((memberId) => ({
          teamId: activeTeam.id,
          trialId: trial.id,
          userId: memberId,
        })),
      ),
    );

    const participantSeeds = [
      {
        trial: 'SLEEP',
        suffix: '001',
        email: 'sleep.001@participants.demo.trialpulse.local',
        gender: 'female',
        age: 54,
      },
      {
        trial: 'SLEEP',
        suffix: '002',
        email: 'sleep.002@participants.demo.trialpulse.local',
        gender: 'male',
        age: 61,
      },
      { trial: 'SLEEP', suffix: '003', email: null, gender: 'none', age: null },
      {
        trial: 'GLUCO',
        suffix: '001',
        email: 'gluco.001@participants.demo.trialpulse.local',
        gender: 'male',
        age: 47,
      },
      {
        trial: 'GLUCO',
        suffix: '002',
        email: 'gluco.002@participants.demo.trialpulse.local',
        gender: 'other',
        age: 39,
      },
      {
        trial: 'WEIGHT',
        suffix: '001',
        email: 'weight.001@participants.demo.trialpulse.local',
        gender: 'female',
        age: 66,
      },
    ] as const;
    await tx.insert(participants).values(
      participantSeeds.map((seed) => ({
        teamId: activeTeam.id,
        trialId: trialId(seed.trial),
        participantCode: `${seed.trial}-${seed.suffix}`,
        participantCodeSuffix: seed.suffix,
        email: seed.email,
        gender: seed.gender,
        age: seed.age,
        notes: 'Demo participant (no real data).',
        // Enrolled three months ago: device data sync backfills from enrolment (bounded in demo mode).
        createdAt: new Date(now.getTime() - DEMO_ENROLMENT_DAYS_AGO * 86_400_000),
      })),
    );

    await tx
      .update(teams)
      .set({
        actualNumOfUsers: DEMO_ACCOUNTS.length,
        actualNumOfTrials: insertedTrials.length,
        actualNumOfParticipants: participantSeeds.length,
      })
      .where(eq(teams.id, activeTeam.id));
    await tx.update(teams).set({ actualNumOfUsers: 2 }).where(eq(teams.id, inactiveTeam.id));

    await tx.insert(teamAllowedBrands).values([
      { teamId: activeTeam.id, brandName: 'Fitbit' },
      { teamId: activeTeam.id, brandName: 'Omron' },
      { teamId: activeTeam.id, brandName: 'Dexcom' },
      { teamId: inactiveTeam.id, brandName: 'Fitbit' },
    ]);

    const catalog = await tx
      .insert(globalDeviceCatalog)
      .values(DEMO_DEVICE_CATALOG.map((device) => ({ ...device })))
      .returning({ id: globalDeviceCatalog.id, deviceName: globalDeviceCatalog.deviceName });
    const catalogId = (name: string) =>
      (catalog.find((row) => row.deviceName === name) as { id: number }).id;

    // The metric catalog is product data (runMigrations upserts it); the demo only uses it.
    const metrics = await tx
      .select({
        id: metricCatalog.id,
        deviceType: metricCatalog.deviceType,
        metricKey: metricCatalog.metricKey,
        metricName: metricCatalog.metricName,
        units: metricCatalog.units,
      })
      .from(metricCatalog);

    const supported = await tx
      .insert(teamSupportedDevices)
      .values([
        ...DEMO_DEVICE_CATALOG.map((device) => ({
          teamId: activeTeam.id,
          globalDeviceCatalogId: catalogId(device.deviceName),
        })),
        {
          teamId: inactiveTeam.id,
          globalDeviceCatalogId: catalogId('Fitbit Smartwatches & Trackers'),
        },
      ])
      .returning({
        id: teamSupportedDevices.id,
        teamId: teamSupportedDevices.teamId,
        globalDeviceCatalogId: teamSupportedDevices.globalDeviceCatalogId,
      });
    const supportedId = (name: string) =>
      (
        supported.find(
          (row) => row.teamId === activeTeam.id && row.globalDeviceCatalogId === catalogId(name),
        ) as { id: number }
      ).id;

    // Layer 1 (system administrator) and layer 2 (team) storage settings for a few devices.
    const enabled: {
      device: string;
      deviceType: DeviceType;
      keys: string[];
      teamKeys: string[];
    }[] = [
      {
        device: 'Fitbit Smartwatches & Trackers',
        deviceType: 'TRACKER',
        keys: [
          'steps',
          'distance',
          'floors',
          'heart_rate',
          'resting_heart_rate',
          'sleep_duration',
          'sleep_stages',
          'spo2',
        ],
        teamKeys: [
          'steps',
          'distance',
          'heart_rate',
          'resting_heart_rate',
          'sleep_duration',
          'sleep_stages',
          'spo2',
        ],
      },
      {
        device: 'Fitbit Aria scale',
        deviceType: 'SCALE',
        keys: ['weight', 'body_fat'],
        teamKeys: ['weight', 'body_fat'],
      },
      {
        device: 'Omron blood-pressure monitor',
        deviceType: 'OMRON_BP_MONITOR',
        keys: ['systolic', 'diastolic', 'pulse'],
        teamKeys: ['systolic', 'diastolic', 'pulse'],
      },
      {
        device: 'Omron Scale',
        deviceType: 'OMRON_SCALE',
        keys: ['weight'],
        teamKeys: ['weight'],
      },
      {
        device: 'Dexcom G7 CGM',
        deviceType: 'DEXCOM_CGM',
        keys: ['egv', 'egv_trend_rate', 'events'],
        teamKeys: ['egv', 'egv_trend_rate'],
      },
    ];
    // Heart rate (a sample every few seconds) is kept two weeks; the rest a year.
    const teamRetention = (key: string) => (key === 'heart_rate' ? 14 : 365);
    const metricOf = (deviceType: string, key: string) => {
      const metric = metrics.find((row) => row.deviceType === deviceType && row.metricKey === key);
      if (!metric) throw new Error(`demo seed: unknown metric ${deviceType}/${key}`);
      return metric;
    };
    await tx.insert(deviceMetricSettings).values(
      enabled.flatMap((entry) =>
        entry.keys.map((key) => {
          const metric = metricOf(entry.deviceType, key);
          return {
            teamId: activeTeam.id,
            teamSupportedDeviceId: supportedId(entry.device),
            metricCatalogId: metric.id,
            metricKey: metric.metricKey,
            metricName: metric.metricName,
            metricUnits: metric.units,
            isEnabled: true,
            retentionDays: 365,
          };
        }),
      ),
    );
    await tx.insert(teamDeviceDataStorageSettings).values(
      enabled.flatMap((entry) =>
        entry.teamKeys.map((key) => {
          const metric = metricOf(entry.deviceType, key);
          return {
            teamId: activeTeam.id,
            teamSupportedDeviceId: supportedId(entry.device),
            metricCatalogId: metric.id,
            metricKey: metric.metricKey,
            metricName: metric.metricName,
            units: metric.units,
            isEnabled: true,
            retentionDays: teamRetention(key),
          };
        }),
      ),
    );

    await tx.insert(auditLog).values({
      at: now,
      action: 'demo.seed',
      entityType: 'system',
      after: {
        teams: 2,
        users: DEMO_ACCOUNTS.length,
        trials: insertedTrials.length,
        participants: participantSeeds.length,
      },
    });

    return { seeded: true };
  });
}

async function hasTeams(db: Db): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(teams);
  return (row?.n ?? 0) > 0;
}
