import { verify } from '@node-rs/argon2';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../test/test-database';
import type { Database } from './client';
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
} from './schema';
import { DEMO_ACCOUNTS, DEMO_TEAM_NAMES, seedDemoData } from './seed/demo-seed';

const PASSWORD_RULE = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[!@#$%^&*]).{8,20}$/;

describe(`demo seed (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let database: Database;
  const counted = {
    teams,
    users,
    credentials,
    teamUserMappings,
    trials,
    trialUsers,
    participants,
    teamAllowedBrands,
    globalDeviceCatalog,
    teamSupportedDevices,
    metricCatalog,
    deviceMetricSettings,
    teamDeviceDataStorageSettings,
    auditLog,
  };
  const counts = async () => {
    const result: Record<string, number> = {};
    for (const [name, table] of Object.entries(counted)) {
      const [row] = await database.db.select({ n: count() }).from(table);
      result[name] = row?.n ?? -1;
    }
    return result;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.close());

  it('has one demo account per role with a password the sign-up rules accept', () => {
    expect(DEMO_ACCOUNTS.map((account) => account.role)).toEqual([
      'Sys_Admin',
      'Admin',
      'User',
      'Viewer',
    ]);
    for (const account of DEMO_ACCOUNTS) expect(account.password).toMatch(PASSWORD_RULE);
  });

  it('seeds once, even when two starts race, and a later start keeps the data', async () => {
    const results = await Promise.all([seedDemoData(database.db), seedDemoData(database.db)]);
    expect(results.filter((result) => result.seeded)).toHaveLength(1);

    const first = await counts();
    expect(first).toEqual({
      teams: 2,
      users: 4,
      credentials: 4,
      teamUserMappings: 6,
      trials: 3,
      trialUsers: 9,
      participants: 6,
      teamAllowedBrands: 4,
      globalDeviceCatalog: 7,
      teamSupportedDevices: 8,
      metricCatalog: 25,
      deviceMetricSettings: 17,
      teamDeviceDataStorageSettings: 15,
      auditLog: 1,
    });

    expect(await seedDemoData(database.db)).toEqual({ seeded: false });
    expect(await counts()).toEqual(first);
  });

  it('creates an active and an inactive team with consistent counters', async () => {
    const rows = await database.db.select().from(teams).orderBy(teams.id);
    const active = rows.find((team) => team.teamName === DEMO_TEAM_NAMES.active);
    const inactive = rows.find((team) => team.teamName === DEMO_TEAM_NAMES.inactive);
    expect(active).toMatchObject({
      isActive: true,
      retentionDays: 365,
      actualNumOfUsers: 4,
      actualNumOfTrials: 3,
      actualNumOfParticipants: 6,
    });
    expect(active!.subscriptionEnds!.getTime()).toBeGreaterThan(Date.now());
    expect(inactive).toMatchObject({ isActive: false, actualNumOfUsers: 2 });
    expect(inactive!.subscriptionEnds!.getTime()).toBeLessThan(Date.now());
  });

  it('stores argon2id hashes that verify the demo passwords; second factor not yet set', async () => {
    for (const account of DEMO_ACCOUNTS) {
      const [row] = await database.db
        .select({
          hash: credentials.passwordHash,
          sfaEnabled: users.sfaEnabled,
          role: teamUserMappings.role,
        })
        .from(users)
        .innerJoin(credentials, eq(credentials.userId, users.id))
        .innerJoin(teamUserMappings, eq(teamUserMappings.userId, users.id))
        .innerJoin(teams, eq(teams.id, teamUserMappings.teamId))
        .where(eq(users.email, account.email));
      expect(row?.hash.startsWith('$argon2id$')).toBe(true);
      expect(await verify(row!.hash, account.password)).toBe(true);
      expect(row).toMatchObject({ sfaEnabled: false });
    }
  });

  it('gives participants codes of the form {trial_code}-{suffix}', async () => {
    const rows = await database.db
      .select({
        code: participants.participantCode,
        suffix: participants.participantCodeSuffix,
        trialCode: trials.trialCode,
      })
      .from(participants)
      .innerJoin(trials, eq(trials.id, participants.trialId));
    for (const row of rows) expect(row.code).toBe(`${row.trialCode}-${row.suffix}`);
    expect(new Set(rows.map((row) => row.trialCode)).size).toBe(3);
  });
});
