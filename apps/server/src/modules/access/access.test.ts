import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@trialpulse/shared';
import type { Database } from '../../db/client';
import { participants, trialUsers, trials } from '../../db/schema';
import { AppError } from '../../lib/errors';
import { createStaffUser, createTeam } from '../../test/fixtures';
import { createTestDatabase } from '../../test/test-database';
import type { AuthContext } from '../auth/session-context';
import { createAccessRepository } from './access.repository';
import { createAccessService, type AccessService } from './access.service';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';

/**
 * The access module on a real database (the service with its real repository): who sees
 * which trial and participant, by role and trial membership, and what each refusal is.
 * The routes' tests (trials-access, participants-access, devices-access) cover the same
 * rules end to end.
 */
describe(`access module (${MODE})`, () => {
  let database: Database;
  let access: AccessService;
  let teamA: number;
  let teamB: number;
  let member: number;
  let outsider: number;
  let trialOfMember: number;
  let otherTrial: number;
  let trialOfTeamB: number;
  let participantOfMember: number;
  let participantOfOtherTrial: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    const db = database.db;
    access = createAccessService({ repository: createAccessRepository(db) });
    teamA = (await createTeam(db)).id;
    teamB = (await createTeam(db)).id;
    member = (await createStaffUser(db, { role: 'User', teamId: teamA })).id;
    outsider = (await createStaffUser(db, { role: 'User', teamId: teamA })).id;
    const trial = async (teamId: number, code: string, users: number[]) => {
      const [row] = await db
        .insert(trials)
        .values({
          teamId,
          trialNumber: code,
          trialName: code,
          trialCode: code,
          ownerUserId: member,
        })
        .returning();
      for (const userId of users)
        await db.insert(trialUsers).values({ teamId, trialId: row!.id, userId });
      return row!.id;
    };
    trialOfMember = await trial(teamA, 'MINE', [member]);
    otherTrial = await trial(teamA, 'OTHER', []);
    trialOfTeamB = await trial(teamB, 'TEAMB', [member]);
    const participant = async (trialId: number, suffix: string) => {
      const [row] = await db
        .insert(participants)
        .values({
          teamId: teamA,
          trialId,
          participantCode: `X-${suffix}`,
          participantCodeSuffix: suffix,
          gender: 'none',
        })
        .returning();
      return row!.id;
    };
    participantOfMember = await participant(trialOfMember, '001');
    participantOfOtherTrial = await participant(otherTrial, '002');
  });
  afterAll(async () => {
    await database?.close();
  });

  const caller = (
    role: Role,
    userId: number,
    teamStatus: 'Active' | 'Inactive' = 'Active',
  ): AuthContext =>
    ({
      kind: 'staff',
      userId,
      sessionId: 'test',
      tokenVersion: 0,
      authStatus: 'Authorized',
      teamId: teamA,
      role,
      user: { teamStatus, hiddenFields: [] },
    }) as unknown as AuthContext;

  async function refusal(
    run: () => unknown,
  ): Promise<{ status: number; message: string; reason?: unknown }> {
    try {
      await run();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      const appError = error as AppError;
      return { status: appError.statusCode, message: appError.message, reason: appError.reason };
    }
    throw new Error('expected a refusal');
  }

  it('Admin sees every trial of the selected team; a User only the trials they are a trial user of', async () => {
    const admin = caller('Admin', outsider);
    expect(await access.visibleTrialIds(admin, 'trial.view')).toEqual({
      teamId: teamA,
      trialIds: [trialOfMember, otherTrial],
    });
    expect(await access.visibleTrialIds(caller('User', member), 'trial.view')).toEqual({
      teamId: teamA,
      trialIds: [trialOfMember],
    });
    expect(await access.visibleTrialIds(caller('Viewer', outsider), 'trial.view')).toEqual({
      teamId: teamA,
      trialIds: [],
    });

    expect(await access.requireTrial(admin, otherTrial, 'trial.update')).toEqual({
      id: otherTrial,
      teamId: teamA,
    });
    expect(
      await access.requireTrial(caller('User', member), trialOfMember, 'trial.update'),
    ).toEqual({
      id: trialOfMember,
      teamId: teamA,
    });
  });

  it('answers 404 "Trial not found." for an invisible trial, another team\'s trial and impossible ids', async () => {
    const user = caller('User', member);
    for (const trialId of [otherTrial, trialOfTeamB, 0, -1, 2_147_483_648, 1.5]) {
      expect(
        await refusal(() => access.requireTrial(user, trialId, 'participant.view')),
      ).toMatchObject({
        status: 404,
        message: 'Trial not found.',
      });
    }
    // Another team's trial stays invisible to an Admin of the selected team too.
    expect(
      await refusal(() => access.requireTrial(caller('Admin', member), trialOfTeamB, 'trial.view')),
    ).toMatchObject({
      status: 404,
    });
  });

  it("finds a participant only through a visible trial, with the caller's own 404 when given", async () => {
    expect(
      await access.requireParticipant(
        caller('Viewer', member),
        participantOfMember,
        'participant.view',
      ),
    ).toEqual({
      id: participantOfMember,
      teamId: teamA,
      trialId: trialOfMember,
    });
    expect(
      await refusal(() =>
        access.requireParticipant(
          caller('User', member),
          participantOfOtherTrial,
          'participant.view',
        ),
      ),
    ).toMatchObject({
      status: 404,
      message: "Something went wrong! We could not find participant's info.",
    });
    const own = () => AppError.notFound('Code change failed: participant or trial not found.');
    expect(
      await refusal(() =>
        access.requireParticipant(
          caller('User', member),
          participantOfOtherTrial,
          'participant.update',
          { notFound: own },
        ),
      ),
    ).toMatchObject({
      status: 404,
      message: 'Code change failed: participant or trial not found.',
    });
    expect(
      await access.requireParticipant(
        caller('Admin', outsider),
        participantOfOtherTrial,
        'participant.delete',
      ),
    ).toMatchObject({
      id: participantOfOtherTrial,
    });
  });

  it('refuses a role the action does not allow (403) before anything else, and an inactive team (403 TEAM_INACTIVE)', async () => {
    expect(
      await refusal(() =>
        access.requireTrial(caller('Viewer', member), trialOfMember, 'trial.update'),
      ),
    ).toMatchObject({
      status: 403,
    });
    expect(
      await refusal(() => access.requireTeam(caller('User', member), 'trial.create')),
    ).toMatchObject({ status: 403 });
    expect(
      await refusal(() =>
        access.requireTrial(caller('Admin', member, 'Inactive'), trialOfMember, 'trial.view'),
      ),
    ).toMatchObject({
      status: 403,
      message: "The current team's subscription is no longer active or has expired.",
      reason: 'TEAM_INACTIVE',
    });
    expect(access.requireTeam(caller('Sys_Admin', member), 'metrics.manage')).toBe(teamA);
  });

  it('checks a team named in a path against the selected team (404 for any other)', async () => {
    expect(access.requireOwnTeam(caller('Viewer', member), teamA, 'participant.view')).toBe(teamA);
    expect(
      await refusal(() =>
        access.requireOwnTeam(caller('Viewer', member), teamB, 'participant.view'),
      ),
    ).toMatchObject({
      status: 404,
      message: 'Team not found.',
    });
  });

  it('locks the team row inside a transaction and answers its limits', async () => {
    const limits = await database.db.transaction((tx) => access.lockTeam(tx, teamA));
    expect(limits).toEqual({ id: teamA, maxTrials: 20, maxParticipants: 200 });
    expect(
      await database.db.transaction((tx) => access.lockTeam(tx, 2_000_000_000)),
    ).toBeUndefined();
  });
});
