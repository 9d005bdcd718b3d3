import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_ERROR_REASONS, DEVICE_MESSAGES } from '@trialpulse/shared';
import { globalDeviceCatalog, participantDevices } from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, signIn, type TestClient } from '../../test/fixtures';
import { addParticipant, createTrial } from '../participants/test-support';
import { allowAllBrands } from './test-support';

/**
 * A data call on a connection that needs re-consent (a legacy Fitbit link after the Web
 * API's shutdown) says so and what to do, not "has not authorised this device" (issue 30).
 */
let ctx: TestApp;
let sysAdmin: TestClient;
let participantId: number;

beforeAll(async () => {
  ctx = await createTestApp();
  const db = ctx.database.db;
  const teamId = (await createTeam(db, { maxTrials: 10, maxParticipants: 100, hiddenFields: [] }))
    .id;
  await allowAllBrands(db, teamId);
  const admin = await signIn(ctx.app, db, await createStaffUser(db, { role: 'Admin', teamId }));
  sysAdmin = await signIn(ctx.app, db, await createStaffUser(db, { role: 'Sys_Admin', teamId }));
  const trialId = (await createTrial(db, admin)).id;
  participantId = (
    await addParticipant(admin, { trialId, email: `reconsent-${process.pid}@study.example.org` })
  ).participantId;
  const [catalog] = await db
    .select({ id: globalDeviceCatalog.id })
    .from(globalDeviceCatalog)
    .where(eq(globalDeviceCatalog.manufacturer, 'Fitbit'));
  await db.insert(participantDevices).values({
    teamId,
    participantId,
    globalDeviceCatalogId: catalog!.id,
    upstream: 'fitbit-legacy',
    authorizationStatus: 'authorized',
    authorizationDate: new Date('2026-03-01T00:00:00Z'),
    needsReconsent: true,
  });
});
afterAll(() => ctx?.close());

describe('a connection that needs re-consent', () => {
  it("the raw page's call names the cause and the action", async () => {
    const answer = await sysAdmin.get(
      `/api/fitbitParticipantDataRaw/${participantId}/activities/steps/date/today/1d.json`,
    );
    expect(answer.statusCode, answer.body).toBe(409);
    expect(answer.json()).toMatchObject({
      message: DEVICE_MESSAGES.needsReconsentData,
      displayToUser: true,
      reason: DEVICE_ERROR_REASONS.notAuthorized,
    });
    expect(answer.json().message).toContain('needs re-consent');
  });
});
