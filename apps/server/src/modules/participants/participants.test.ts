import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CODE_SUFFIX_MESSAGE,
  PARTICIPANT_MESSAGES,
  TRIAL_MESSAGES,
  codeSuffixSchema,
  participantRawSchema,
  participantSchema,
} from '@trialpulse/shared';
import {
  deviceReadings,
  globalDeviceCatalog,
  participantDevices,
  participants,
  teamAllowedBrands,
  teamSupportedDevices,
  teams,
} from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/test-app';
import { readingsServiceFor } from '../sync/test-support';
import { createStaffUser, createTeam, type TestClient, type TestUser } from '../../test/fixtures';
import { auditSince, lastAuditId, participantCount, signIn } from '../trials/test-support';
import {
  addParticipant,
  createTrial,
  participantRow,
  teamParticipants,
  teamRow,
} from './test-support';

let ctx: TestApp;
const db = () => ctx.database.db;
/** A team that shows emails and notes (hidden_fields empty). */
let teamId: number;
let admin: TestUser;
let user: TestUser;
let viewer: TestUser;
let adminClient: TestClient;
let userClient: TestClient;
let sysAdminClient: TestClient;

beforeAll(async () => {
  ctx = await createTestApp();
  teamId = (await createTeam(db(), { maxTrials: 100, maxParticipants: 1000, hiddenFields: [] })).id;
  admin = await createStaffUser(db(), { role: 'Admin', teamId });
  user = await createStaffUser(db(), { role: 'User', teamId });
  viewer = await createStaffUser(db(), { role: 'Viewer', teamId });
  adminClient = await signIn(ctx.app, db(), admin);
  userClient = await signIn(ctx.app, db(), user);
  sysAdminClient = await signIn(
    ctx.app,
    db(),
    await createStaffUser(db(), { role: 'Sys_Admin', teamId }),
  );
});
afterAll(() => ctx.close());

let emailCounter = 0;
const uniqueEmail = () => `participant-${process.pid}-${++emailCounter}@study.example.org`;
const put = (client: TestClient, body: unknown) => client.request('PUT', '/api/participant', body);
const del = (client: TestClient, body: unknown) =>
  client.request('DELETE', '/api/participant', body);
const patchCode = (client: TestClient, trialId: number, participantId: number, body: unknown) =>
  client.request('PATCH', `/api/trialParticipants/${trialId}/${participantId}/code`, body);

describe('adding a participant', () => {
  it('stores it with code prefix-suffix, answers id and code, recounts and audits without the email', async () => {
    const trial = await createTrial(db(), adminClient, [user.email]);
    const email = uniqueEmail();
    const countBefore = (await teamRow(db(), teamId)).actualNumOfParticipants;
    const mark = await lastAuditId(db());
    const response = await userClient.post('/api/trialParticipants', {
      trialId: trial.id,
      email: `  ${email.toUpperCase()} `,
      gender: 'female',
      age: '42',
      notes: ' Wears the tracker on the left wrist ',
      codeSuffix: ' 0042 ',
      teamId: 999_999,
      participant_code: 'HIJACK-1',
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      participantId: expect.any(Number),
      participant_code: `${trial.trialCode}-0042`,
      participant_code_suffix: '0042',
    });
    expect(await participantRow(db(), body.participantId)).toMatchObject({
      teamId,
      trialId: trial.id,
      participantCode: `${trial.trialCode}-0042`,
      participantCodeSuffix: '0042',
      email,
      gender: 'female',
      age: 42,
      notes: 'Wears the tracker on the left wrist',
    });
    expect((await teamRow(db(), teamId)).actualNumOfParticipants).toBe(countBefore + 1);

    const audit = await auditSince(db(), mark);
    expect(audit.map((a) => [a.action, a.entityId, a.actorUserId, a.teamId])).toEqual([
      ['participant.create', String(body.participantId), user.id, teamId],
    ]);
    expect(audit[0]!.after).toMatchObject({
      participantId: body.participantId,
      participantCode: `${trial.trialCode}-0042`,
      hasEmail: true,
      hasNotes: true,
      suffixAssigned: false,
      teamParticipantCount: countBefore + 1,
    });
    expect(JSON.stringify(audit)).not.toContain(email);
    expect(JSON.stringify(audit)).not.toContain('left wrist');
  });

  it('lists, reads and shows the trial code of the participants of a trial the team shows emails for', async () => {
    const trial = await createTrial(db(), adminClient);
    const email = uniqueEmail();
    const { participantId } = await addParticipant(adminClient, {
      trialId: trial.id,
      email,
      gender: 'male',
      age: 7,
      notes: 'n',
    });
    await addParticipant(adminClient, { trialId: trial.id });

    const list = await adminClient.get(`/api/trialParticipants/${trial.id}`);
    expect(list.statusCode).toBe(200);
    const rows = list.json() as unknown[];
    expect(rows).toHaveLength(2);
    for (const row of rows) participantSchema.strict().parse(row);
    expect(rows[0]).toMatchObject({
      id: participantId,
      participant_code: `${trial.trialCode}-001`,
      participant_code_suffix: '001',
      email,
      gender: 'male',
      age: 7,
      notes: 'n',
      trialId: trial.id,
    });
    expect(rows[1]).toMatchObject({ email: null, gender: 'none', age: null, notes: null });

    const one = await adminClient.get(`/api/participant/${participantId}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(rows[0]);
    const code = await adminClient.get(`/api/trialParticipants/${trial.id}/trialCode`);
    expect(code.json()).toEqual({ trial_code: trial.trialCode });

    const raw = await sysAdminClient.get(`/api/participant/${participantId}/raw`);
    expect(raw.statusCode).toBe(200);
    expect(participantRawSchema.strict().parse(raw.json())).toMatchObject({
      id: participantId,
      team_id: teamId,
      trial_id: trial.id,
      email,
      notes: 'n',
      hidden_fields: [],
    });

    const empty = await createTrial(db(), adminClient);
    expect((await adminClient.get(`/api/trialParticipants/${empty.id}`)).json()).toEqual([]);
  });

  it('refuses an email the team already has (any case) with the spec message', async () => {
    const trial = await createTrial(db(), adminClient);
    const other = await createTrial(db(), adminClient);
    const email = uniqueEmail();
    await addParticipant(adminClient, { trialId: trial.id, email });
    const before = await teamParticipants(db(), teamId);
    const mark = await lastAuditId(db());
    for (const [trialId, sent] of [
      [trial.id, email],
      [other.id, email.toUpperCase()],
    ] as const) {
      const response = await adminClient.post('/api/trialParticipants', {
        trialId,
        email: sent,
        gender: 'none',
      });
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({
        message: PARTICIPANT_MESSAGES.emailTaken,
        displayToUser: true,
        reason: 'PARTICIPANT_EMAIL_TAKEN',
      });
      expect(response.body).not.toMatch(/insert|constraint|participants_|23505/i);
    }
    expect(await teamParticipants(db(), teamId)).toEqual(before);
    expect(await auditSince(db(), mark)).toEqual([]);

    // Another team may use the same address.
    const otherTeam = await createTeam(db(), { hiddenFields: [] });
    const otherAdmin = await signIn(
      ctx.app,
      db(),
      await createStaffUser(db(), { role: 'Admin', teamId: otherTeam.id }),
    );
    const otherTrial = await createTrial(db(), otherAdmin);
    await addParticipant(otherAdmin, { trialId: otherTrial.id, email });
  });

  it('two parallel adds with one email: one created, one 409', async () => {
    const trial = await createTrial(db(), adminClient);
    const email = uniqueEmail();
    const responses = await Promise.all(
      ['1', '2'].map((codeSuffix) =>
        adminClient.post('/api/trialParticipants', {
          trialId: trial.id,
          email,
          gender: 'none',
          codeSuffix,
        }),
      ),
    );
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(responses.find((r) => r.statusCode === 409)!.json().message).toBe(
      PARTICIPANT_MESSAGES.emailTaken,
    );
    expect(await participantCount(db(), trial.id, teamId)).toBe(1);
  });

  it('answers 400 with the spec messages for age, notes, email, gender and suffix, storing nothing', async () => {
    const trial = await createTrial(db(), adminClient);
    const mark = await lastAuditId(db());
    const cases: [Record<string, unknown>, string, string][] = [
      [{ age: '0' }, 'age', PARTICIPANT_MESSAGES.ageGreaterThanZero],
      [{ age: -4 }, 'age', PARTICIPANT_MESSAGES.ageGreaterThanZero],
      [{ age: '1000' }, 'age', PARTICIPANT_MESSAGES.ageMaxDigits],
      [{ age: 1000 }, 'age', PARTICIPANT_MESSAGES.ageMaxDigits],
      [{ age: '4a' }, 'age', PARTICIPANT_MESSAGES.ageDigitsOnly],
      [{ age: 12.5 }, 'age', PARTICIPANT_MESSAGES.ageDigitsOnly],
      [{ age: true }, 'age', PARTICIPANT_MESSAGES.ageDigitsOnly],
      [{ notes: 'n'.repeat(301) }, 'notes', PARTICIPANT_MESSAGES.notesTooLong],
      [{ email: 'not-an-email' }, 'email', 'Email is invalid'],
      [{ email: 'a@b' }, 'email', 'Email is invalid'],
      [{ gender: 'unknown' }, 'gender', PARTICIPANT_MESSAGES.genderRequired],
      [{ gender: undefined }, 'gender', PARTICIPANT_MESSAGES.genderRequired],
      [{ codeSuffix: 'AB12' }, 'codeSuffix', CODE_SUFFIX_MESSAGE],
      [{ codeSuffix: '12-3' }, 'codeSuffix', CODE_SUFFIX_MESSAGE],
      [{ codeSuffix: '1234567890123' }, 'codeSuffix', CODE_SUFFIX_MESSAGE],
      [{ codeSuffix: '１２' }, 'codeSuffix', CODE_SUFFIX_MESSAGE],
      [{ codeSuffix: 12 }, 'codeSuffix', CODE_SUFFIX_MESSAGE],
    ];
    for (const [overrides, field, message] of cases) {
      const response = await adminClient.post('/api/trialParticipants', {
        trialId: trial.id,
        gender: 'none',
        ...overrides,
      });
      expect(response.statusCode, JSON.stringify(overrides)).toBe(400);
      expect(response.json()).toMatchObject({
        message,
        displayToUser: true,
        reason: 'VALIDATION_ERROR',
        errors: [{ field, message }],
      });
    }
    expect(await participantCount(db(), trial.id, teamId)).toBe(0);
    expect(await auditSince(db(), mark)).toEqual([]);

    // The limits themselves are allowed; blanks mean "not given".
    const ok = await addParticipant(adminClient, {
      trialId: trial.id,
      age: '999',
      notes: 'n'.repeat(300),
      email: '',
      codeSuffix: '123456789_12',
    });
    expect(await participantRow(db(), ok.participantId)).toMatchObject({
      age: 999,
      email: null,
      participantCodeSuffix: '123456789_12',
    });
    await addParticipant(adminClient, { trialId: trial.id, age: '', notes: '', codeSuffix: '  ' });
  });

  it("another team's trial, an unknown trial and an impossible id are 404 'Trial not found.'", async () => {
    const otherTeam = await createTeam(db());
    const otherAdmin = await signIn(
      ctx.app,
      db(),
      await createStaffUser(db(), { role: 'Admin', teamId: otherTeam.id }),
    );
    const foreign = await createTrial(db(), otherAdmin);
    for (const trialId of [foreign.id, 2_147_483_000, 2 ** 40]) {
      const response = await adminClient.post('/api/trialParticipants', {
        trialId,
        gender: 'none',
      });
      expect(response.statusCode, response.body).toBe(404);
      expect(response.json().message).toBe(TRIAL_MESSAGES.notFound);
    }
    expect(await participantCount(db(), foreign.id, otherTeam.id)).toBe(0);
  });
});

describe('participant codes', () => {
  it('assigns the next free number when the suffix is empty: max all-digit suffix + 1, 3 digits', async () => {
    const trial = await createTrial(db(), adminClient);
    const suffix = async (codeSuffix?: string) =>
      (await addParticipant(adminClient, { trialId: trial.id, codeSuffix }))
        .participant_code_suffix;
    expect(await suffix()).toBe('001');
    expect(await suffix('')).toBe('002');
    expect(await suffix('7_1')).toBe('7_1'); // not all digits: ignored by the numbering
    expect(await suffix()).toBe('003');
    expect(await suffix('0099')).toBe('0099');
    expect(await suffix()).toBe('100');
    expect(await suffix('999999999999')).toBe('999999999999');
    // Past 12 digits the lowest free number is taken instead.
    expect(await suffix()).toBe('004');

    const mark = await lastAuditId(db());
    const { participantId } = await addParticipant(adminClient, { trialId: trial.id });
    const [audit] = await auditSince(db(), mark);
    expect(audit!.after).toMatchObject({ participantId, suffixAssigned: true });
  });

  it('trims and upper-cases the suffix (the shared schema, as the form uses it)', () => {
    expect(codeSuffixSchema.parse(' 12_3 ')).toBe('12_3');
    expect(codeSuffixSchema.parse('')).toBeUndefined();
    expect(codeSuffixSchema.safeParse('ab').success).toBe(false);
  });

  it('refuses a suffix already used in the trial (409), allows it in another trial', async () => {
    const trial = await createTrial(db(), adminClient);
    const other = await createTrial(db(), adminClient);
    await addParticipant(adminClient, { trialId: trial.id, codeSuffix: '55' });
    const taken = await adminClient.post('/api/trialParticipants', {
      trialId: trial.id,
      gender: 'none',
      codeSuffix: ' 55 ',
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({
      message: PARTICIPANT_MESSAGES.codeTaken,
      displayToUser: true,
      reason: 'PARTICIPANT_CODE_TAKEN',
    });
    await addParticipant(adminClient, { trialId: other.id, codeSuffix: '55' });
  });

  it('20 parallel adds with one suffix: exactly 1 created, 19 × 409, count and audit right', async () => {
    const trial = await createTrial(db(), adminClient, [user.email]);
    // One add first, so the client holds its CSRF token before the parallel burst.
    await addParticipant(userClient, { trialId: trial.id });
    const countBefore = (await teamRow(db(), teamId)).actualNumOfParticipants;
    const mark = await lastAuditId(db());
    const raced = await Promise.all(
      Array.from({ length: 20 }, () =>
        userClient.post('/api/trialParticipants', {
          trialId: trial.id,
          gender: 'other',
          codeSuffix: '777',
        }),
      ),
    );
    const statuses = raced.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const response of raced.filter((r) => r.statusCode === 409)) {
      expect(response.json()).toMatchObject({
        message: PARTICIPANT_MESSAGES.codeTaken,
        reason: 'PARTICIPANT_CODE_TAKEN',
      });
      expect(response.body).not.toMatch(/duplicate key|constraint|participants_|insert/i);
    }
    const suffixes = (await teamParticipants(db(), teamId))
      .filter((row) => row.trialId === trial.id)
      .map((row) => row.participantCodeSuffix);
    expect(suffixes).toEqual(['001', '777']);
    expect((await teamRow(db(), teamId)).actualNumOfParticipants).toBe(countBefore + 1);
    expect((await auditSince(db(), mark)).map((a) => a.action)).toEqual(['participant.create']);
  });
});

describe('editing a participant', () => {
  it('updates email, gender, age and notes, keeps the code, audits only what changed (no values of email or notes)', async () => {
    const trial = await createTrial(db(), adminClient, [user.email]);
    const email = uniqueEmail();
    const { participantId, participant_code } = await addParticipant(adminClient, {
      trialId: trial.id,
      email,
      gender: 'female',
      age: 30,
      notes: 'first',
    });
    const newEmail = uniqueEmail();
    const mark = await lastAuditId(db());
    const response = await put(userClient, {
      id: participantId,
      email: newEmail,
      gender: 'male',
      age: '31',
      notes: 'second',
      participant_code: 'HIJACK-9',
      trialId: 999,
      teamId: 999,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: expect.any(String) });
    expect(await participantRow(db(), participantId)).toMatchObject({
      email: newEmail,
      gender: 'male',
      age: 31,
      notes: 'second',
      participantCode: participant_code,
      trialId: trial.id,
      teamId,
    });
    const audit = await auditSince(db(), mark);
    expect(audit.map((a) => [a.action, a.entityId, a.actorUserId])).toEqual([
      ['participant.update', String(participantId), user.id],
    ]);
    expect(audit[0]!.before).toMatchObject({ gender: 'female', age: 30, hasEmail: true });
    expect(audit[0]!.after).toMatchObject({
      gender: 'male',
      age: 31,
      changed: ['email', 'gender', 'age', 'notes'],
    });
    const text = JSON.stringify(audit);
    for (const secret of [email, newEmail, 'first', 'second']) expect(text).not.toContain(secret);

    // Omitted email, age and notes are kept; blank clears them; nothing changed → no audit row.
    await put(userClient, { id: participantId, gender: 'male' });
    expect(await participantRow(db(), participantId)).toMatchObject({
      email: newEmail,
      notes: 'second',
    });
    expect((await auditSince(db(), mark)).length).toBe(1);
    await put(userClient, { id: participantId, gender: 'male', email: '', age: '', notes: null });
    expect(await participantRow(db(), participantId)).toMatchObject({
      email: null,
      notes: null,
      age: null,
    });
  });

  it('refuses an email another participant of the team has (409), and invalid fields (400), changing nothing', async () => {
    const trial = await createTrial(db(), adminClient);
    const taken = uniqueEmail();
    await addParticipant(adminClient, { trialId: trial.id, email: taken });
    const { participantId } = await addParticipant(adminClient, { trialId: trial.id, age: 5 });
    const before = await participantRow(db(), participantId);
    const conflict = await put(adminClient, { id: participantId, gender: 'none', email: taken });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().message).toBe(PARTICIPANT_MESSAGES.emailTaken);
    for (const [body, message] of [
      [{ age: '0' }, PARTICIPANT_MESSAGES.ageGreaterThanZero],
      [{ age: '1234' }, PARTICIPANT_MESSAGES.ageMaxDigits],
      [{ age: 'x' }, PARTICIPANT_MESSAGES.ageDigitsOnly],
      [{ notes: 'x'.repeat(301) }, PARTICIPANT_MESSAGES.notesTooLong],
      [{ email: 'bad@' }, 'Email is invalid'],
      [{ gender: 'n/a' }, PARTICIPANT_MESSAGES.genderRequired],
    ] as const) {
      const response = await put(adminClient, { id: participantId, gender: 'none', ...body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().message).toBe(message);
    }
    expect(await participantRow(db(), participantId)).toEqual(before);
  });

  it('unknown, impossible and other-team ids are 404 with the spec text', async () => {
    for (const id of [2_147_483_000, 2 ** 40]) {
      const response = await put(adminClient, { id, gender: 'none' });
      expect(response.statusCode).toBe(404);
      expect(response.json().message).toBe(PARTICIPANT_MESSAGES.notFound);
      expect((await adminClient.get(`/api/participant/${id}`)).statusCode).toBe(404);
    }
  });
});

describe('changing the code', () => {
  it('changes the suffix, keeps the prefix, audits; a taken suffix is 409 and the old code is kept', async () => {
    const trial = await createTrial(db(), adminClient, [user.email]);
    const { participantId } = await addParticipant(adminClient, {
      trialId: trial.id,
      codeSuffix: '10',
    });
    await addParticipant(adminClient, { trialId: trial.id, codeSuffix: '20' });
    const mark = await lastAuditId(db());

    const changed = await patchCode(userClient, trial.id, participantId, { suffix: ' 11_ ' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toEqual({ participant_code: `${trial.trialCode}-11_` });
    expect(await participantRow(db(), participantId)).toMatchObject({
      participantCode: `${trial.trialCode}-11_`,
      participantCodeSuffix: '11_',
    });
    const audit = await auditSince(db(), mark);
    expect(audit.map((a) => [a.action, a.entityId, a.actorUserId])).toEqual([
      ['participant.code_change', String(participantId), user.id],
    ]);
    expect(audit[0]!.before).toEqual({
      participantCode: `${trial.trialCode}-10`,
      participantCodeSuffix: '10',
    });

    const conflict = await patchCode(userClient, trial.id, participantId, { suffix: '20' });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({
      message: PARTICIPANT_MESSAGES.codeTaken,
      displayToUser: true,
    });
    expect((await participantRow(db(), participantId))!.participantCodeSuffix).toBe('11_');

    // The same suffix again is a no-op: 200, no audit row.
    const same = await patchCode(userClient, trial.id, participantId, { suffix: '11_' });
    expect(same.json()).toEqual({ participant_code: `${trial.trialCode}-11_` });
    expect(await auditSince(db(), mark)).toHaveLength(1);
  });

  it('invalid suffixes are 400 "Code change failed: invalid suffix."', async () => {
    const trial = await createTrial(db(), adminClient);
    const { participantId } = await addParticipant(adminClient, { trialId: trial.id });
    for (const body of [
      { suffix: '' },
      { suffix: '   ' },
      { suffix: 'ab' },
      { suffix: '1-2' },
      { suffix: '1234567890123' },
      { suffix: 5 },
      {},
    ]) {
      const response = await patchCode(adminClient, trial.id, participantId, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toMatchObject({
        message: PARTICIPANT_MESSAGES.codeChangeInvalidSuffix,
        displayToUser: true,
      });
    }
    expect((await participantRow(db(), participantId))!.participantCodeSuffix).toBe('001');
  });

  it('a participant of another trial, an unknown participant or trial: 404 "participant or trial not found"', async () => {
    const trial = await createTrial(db(), adminClient);
    const other = await createTrial(db(), adminClient);
    const { participantId } = await addParticipant(adminClient, { trialId: trial.id });
    for (const [trialId, id] of [
      [other.id, participantId],
      [trial.id, 2_147_483_000],
      [2_147_483_000, participantId],
      [2 ** 40, participantId],
    ]) {
      const response = await patchCode(adminClient, trialId!, id!, { suffix: '5' });
      expect(response.statusCode, `${trialId}/${id}`).toBe(404);
      expect(response.json().message).toBe(PARTICIPANT_MESSAGES.codeChangeNotFound);
    }
    expect((await participantRow(db(), participantId))!.participantCodeSuffix).toBe('001');
  });
});

describe('deleting a participant', () => {
  it('deletes it with its device connections and data, recounts and audits what went', async () => {
    const trial = await createTrial(db(), adminClient, [user.email]);
    const { participantId, participant_code } = await addParticipant(adminClient, {
      trialId: trial.id,
      email: uniqueEmail(),
    });
    const keep = await addParticipant(adminClient, { trialId: trial.id });
    const [device] = await db()
      .insert(globalDeviceCatalog)
      .values({ manufacturer: 'Fitbit', deviceName: `Tracker ${process.pid}-${Date.now()}` })
      .returning();
    const [connection] = await db()
      .insert(participantDevices)
      .values({
        teamId,
        participantId,
        globalDeviceCatalogId: device!.id,
        upstream: 'google-health',
        authorizationStatus: 'authorized',
      })
      .returning();
    await readingsServiceFor(db()).store(
      [1, 2, 3].map((day) => ({
        teamId,
        participantId,
        brand: 'Fitbit' as const,
        upstream: connection!.upstream,
        metricKey: 'steps',
        recordedAt: new Date(Date.UTC(2026, 0, day)),
        value: 1000 * day,
      })),
    );
    const countBefore = (await teamRow(db(), teamId)).actualNumOfParticipants;
    const mark = await lastAuditId(db());

    const response = await del(userClient, { id: participantId });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: expect.any(String) });
    expect(await participantRow(db(), participantId)).toBeUndefined();
    expect(
      await db()
        .select()
        .from(participantDevices)
        .where(eq(participantDevices.participantId, participantId)),
    ).toEqual([]);
    expect(
      await db()
        .select()
        .from(deviceReadings)
        .where(eq(deviceReadings.participantId, participantId)),
    ).toEqual([]);
    expect(await participantRow(db(), keep.participantId)).toBeDefined();
    expect((await teamRow(db(), teamId)).actualNumOfParticipants).toBe(countBefore - 1);

    const audit = await auditSince(db(), mark);
    expect(audit.map((a) => [a.action, a.entityId, a.actorUserId, a.teamId])).toEqual([
      ['participant.delete', String(participantId), user.id, teamId],
    ]);
    expect(audit[0]!.before).toMatchObject({
      participantCode: participant_code,
      hasEmail: true,
      deviceConnections: 1,
      deviceDataPoints: 3,
    });
    expect(audit[0]!.after).toEqual({ teamParticipantCount: countBefore - 1 });

    const again = await del(userClient, { id: participantId });
    expect(again.statusCode).toBe(404);
    expect(again.json().message).toBe(PARTICIPANT_MESSAGES.notFound);
    expect((await userClient.get(`/api/participant/${participantId}`)).statusCode).toBe(404);
  });
});

describe("the team's max_participants", () => {
  it('refuses the participant beyond the limit with the spec message; counts stay right after deletes', async () => {
    const limited = (await createTeam(db(), { maxParticipants: 2 })).id;
    const client = await signIn(
      ctx.app,
      db(),
      await createStaffUser(db(), { role: 'Admin', teamId: limited }),
    );
    const trialA = await createTrial(db(), client);
    const trialB = await createTrial(db(), client);
    const first = await addParticipant(client, { trialId: trialA.id });
    await addParticipant(client, { trialId: trialB.id });
    expect((await teamRow(db(), limited)).actualNumOfParticipants).toBe(2);

    const mark = await lastAuditId(db());
    const refused = await client.post('/api/trialParticipants', {
      trialId: trialA.id,
      gender: 'none',
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      message: PARTICIPANT_MESSAGES.maxParticipantsReached,
      displayToUser: true,
      reason: 'MAX_PARTICIPANTS_REACHED',
    });
    expect(await auditSince(db(), mark)).toEqual([]);
    expect((await teamRow(db(), limited)).actualNumOfParticipants).toBe(2);

    expect((await del(client, { id: first.participantId })).statusCode).toBe(200);
    expect((await teamRow(db(), limited)).actualNumOfParticipants).toBe(1);
    await addParticipant(client, { trialId: trialA.id });
    expect((await teamRow(db(), limited)).actualNumOfParticipants).toBe(2);
    expect(
      (await client.post('/api/trialParticipants', { trialId: trialB.id, gender: 'none' }))
        .statusCode,
    ).toBe(409);
  });

  it('holds under concurrent adds: exactly the free places are used', async () => {
    const limited = (await createTeam(db(), { maxParticipants: 3 })).id;
    const client = await signIn(
      ctx.app,
      db(),
      await createStaffUser(db(), { role: 'Admin', teamId: limited }),
    );
    const trial = await createTrial(db(), client);
    await addParticipant(client, { trialId: trial.id });
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        client.post('/api/trialParticipants', { trialId: trial.id, gender: 'none' }),
      ),
    );
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 200, 409, 409, 409, 409]);
    const rows = await teamParticipants(db(), limited);
    expect(rows.map((r) => r.participantCodeSuffix).sort()).toEqual(['001', '002', '003']);
    expect((await teamRow(db(), limited)).actualNumOfParticipants).toBe(3);
  });
});

describe('hidden fields', () => {
  it('email hidden for the team: no participant email in any API response (every participant call), nor in logs or audit', async () => {
    const hiddenTeam = (await createTeam(db(), { hiddenFields: ['email'] })).id;
    const sys = await signIn(
      ctx.app,
      db(),
      await createStaffUser(db(), { role: 'Sys_Admin', teamId: hiddenTeam }),
    );
    const hUser = await createStaffUser(db(), { role: 'User', teamId: hiddenTeam });
    const hViewer = await createStaffUser(db(), { role: 'Viewer', teamId: hiddenTeam });
    const userC = await signIn(ctx.app, db(), hUser);
    const viewerC = await signIn(ctx.app, db(), hViewer);
    const trial = await createTrial(db(), sys, [hUser.email, hViewer.email]);
    const email = uniqueEmail();
    const newEmail = uniqueEmail();
    const secrets = [email, newEmail];
    const bodies: string[] = [];
    const record = async (promise: ReturnType<TestClient['get']>, status = 200) => {
      const response = await promise;
      expect(response.statusCode, response.body).toBe(status);
      bodies.push(response.body);
      return response;
    };

    const mark = await lastAuditId(db());
    // Writing an email is allowed (the form shows a placeholder); reading it never is.
    const added = await record(
      userC.post('/api/trialParticipants', {
        trialId: trial.id,
        email,
        gender: 'none',
        notes: 'visible notes',
      }),
    );
    const { participantId } = added.json();
    expect((await participantRow(db(), participantId))!.email).toBe(email);
    await record(
      userC.post('/api/trialParticipants', { trialId: trial.id, email, gender: 'none' }),
      409,
    );

    for (const client of [sys, userC, viewerC]) {
      const list = await record(client.get(`/api/trialParticipants/${trial.id}`));
      expect(list.json()[0]).not.toHaveProperty('email');
      expect(list.json()[0].notes).toBe('visible notes');
      const one = await record(client.get(`/api/participant/${participantId}`));
      expect(one.json()).not.toHaveProperty('email');
      await record(client.get(`/api/trialParticipants/${trial.id}/trialCode`));
    }
    const raw = await record(sys.get(`/api/participant/${participantId}/raw`));
    expect(raw.json()).not.toHaveProperty('email');
    expect(raw.json()).toMatchObject({ notes: 'visible notes', hidden_fields: ['email'] });

    // An omitted or blank email leaves the stored one; a new one replaces it.
    await record(put(userC, { id: participantId, gender: 'male', notes: 'visible notes' }));
    await record(
      put(userC, { id: participantId, gender: 'male', email: '', notes: 'visible notes' }),
    );
    await record(put(userC, { id: participantId, gender: 'male', email: null }));
    expect((await participantRow(db(), participantId))!.email).toBe(email);
    await record(put(userC, { id: participantId, gender: 'female', email: newEmail }));
    expect((await participantRow(db(), participantId))!.email).toBe(newEmail);
    await record(patchCode(userC, trial.id, participantId, { suffix: '900' }));
    await record(userC.get(`/api/participant/${participantId}`));
    await record(sys.get(`/api/participant/${participantId}/raw`));
    await record(del(userC, { id: participantId }));

    expect(bodies.length).toBeGreaterThan(15);
    for (const body of bodies) {
      for (const secret of secrets) {
        expect(body.toLowerCase()).not.toContain(secret);
        expect(body).not.toContain(secret.split('@')[0]);
      }
    }
    const logs = ctx.logLines().join('\n');
    const audit = JSON.stringify(await auditSince(db(), mark));
    for (const secret of secrets) {
      expect(logs).not.toContain(secret);
      expect(audit).not.toContain(secret);
    }
  });

  it('notes hidden too (the default): notes are null in lists and reads, absent from raw, kept on edit', async () => {
    const hiddenTeam = (await createTeam(db())).id; // hidden_fields defaults to email and notes
    const sys = await signIn(
      ctx.app,
      db(),
      await createStaffUser(db(), { role: 'Sys_Admin', teamId: hiddenTeam }),
    );
    const trial = await createTrial(db(), sys);
    const email = uniqueEmail();
    const { participantId } = await addParticipant(sys, {
      trialId: trial.id,
      email,
      notes: 'secret note',
    });
    const responses = [
      await sys.get(`/api/trialParticipants/${trial.id}`),
      await sys.get(`/api/participant/${participantId}`),
      await sys.get(`/api/participant/${participantId}/raw`),
    ];
    for (const response of responses) {
      expect(response.statusCode).toBe(200);
      expect(response.body).not.toContain('secret note');
      expect(response.body).not.toContain(email);
    }
    expect(responses[1]!.json().notes).toBeNull();
    expect(responses[2]!.json()).not.toHaveProperty('notes');
    expect(responses[2]!.json().hidden_fields).toEqual(['email', 'notes']);
    await put(sys, { id: participantId, gender: 'male', notes: '' });
    expect(await participantRow(db(), participantId)).toMatchObject({
      notes: 'secret note',
      email,
      gender: 'male',
    });
  });
});

describe('team devices', () => {
  it("answers the own team's active brands and supported devices; another team id is 404", async () => {
    const team = (await createTeam(db())).id;
    const other = (await createTeam(db())).id;
    const client = await signIn(
      ctx.app,
      db(),
      await createStaffUser(db(), { role: 'Viewer', teamId: team }),
    );
    await db()
      .insert(teamAllowedBrands)
      .values([
        { teamId: team, brandName: 'Omron' },
        { teamId: team, brandName: 'Fitbit' },
        { teamId: team, brandName: 'Dexcom', isActive: false },
        { teamId: other, brandName: 'Dexcom' },
      ]);
    const tag = `${process.pid}-${Date.now()}`;
    const [sense, scale, off] = await db()
      .insert(globalDeviceCatalog)
      .values([
        { manufacturer: 'Fitbit', deviceName: `Fitbit Sense ${tag}`, deviceType: 'TRACKER' },
        { manufacturer: 'Omron', deviceName: `Omron Scale ${tag}`, deviceType: null },
        { manufacturer: 'Omron', deviceName: `Switched off ${tag}` },
      ])
      .returning();
    const [senseRow] = await db()
      .insert(teamSupportedDevices)
      .values([
        { teamId: team, globalDeviceCatalogId: sense!.id },
        { teamId: team, globalDeviceCatalogId: scale!.id },
        { teamId: team, globalDeviceCatalogId: off!.id, isActive: false },
        { teamId: other, globalDeviceCatalogId: off!.id },
      ])
      .returning();

    const brands = await client.get(`/api/teamAllowedDevices/${team}`);
    expect(brands.statusCode).toBe(200);
    expect(brands.json()).toEqual([{ brand_name: 'Fitbit' }, { brand_name: 'Omron' }]);
    const devices = await client.get(`/api/teamSupportedDevices/${team}`);
    expect(devices.statusCode).toBe(200);
    expect(devices.json()).toEqual([
      {
        id: senseRow!.id,
        device_name: `Fitbit Sense ${tag}`,
        global_device_catalog_id: sense!.id,
        device_type: 'TRACKER',
      },
      {
        id: expect.any(Number),
        device_name: `Omron Scale ${tag}`,
        global_device_catalog_id: scale!.id,
        device_type: null,
      },
    ]);
    for (const url of [
      `/api/teamAllowedDevices/${other}`,
      `/api/teamSupportedDevices/${other}`,
      '/api/teamAllowedDevices/2147483648',
    ]) {
      const response = await client.get(url);
      expect(response.statusCode, url).toBe(404);
      expect(response.body).not.toContain('Dexcom');
      expect(response.body).not.toContain('Switched off');
    }
  });
});

describe('an inactive or expired team', () => {
  for (const [label, overrides] of [
    ['switched off', { isActive: false }],
    ['subscription ended', { subscriptionEnds: new Date(Date.now() - 86_400_000) }],
  ] as const) {
    it(`${label}: every participant call answers 403 TEAM_INACTIVE and nothing changes`, async () => {
      const team = await createTeam(db(), { hiddenFields: [] });
      const client = await signIn(
        ctx.app,
        db(),
        await createStaffUser(db(), { role: 'Sys_Admin', teamId: team.id }),
      );
      // A participant made while the team was active.
      const trial = await createTrial(db(), client);
      const { participantId } = await addParticipant(client, {
        trialId: trial.id,
        email: uniqueEmail(),
      });
      await db()
        .update(participants)
        .set({ notes: 'before' })
        .where(eq(participants.id, participantId));
      await db().update(teams).set(overrides).where(eq(teams.id, team.id));
      const before = await teamParticipants(db(), team.id);
      const mark = await lastAuditId(db());
      const responses = [
        await client.get(`/api/trialParticipants/${trial.id}`),
        await client.get(`/api/trialParticipants/${trial.id}/trialCode`),
        await client.post('/api/trialParticipants', { trialId: trial.id, gender: 'none' }),
        await put(client, { id: participantId, gender: 'male' }),
        await patchCode(client, trial.id, participantId, { suffix: '5' }),
        await del(client, { id: participantId }),
        await client.get(`/api/participant/${participantId}`),
        await client.get(`/api/participant/${participantId}/raw`),
        await client.get(`/api/teamAllowedDevices/${team.id}`),
        await client.get(`/api/teamSupportedDevices/${team.id}`),
      ];
      for (const response of responses) {
        expect(response.statusCode, response.body).toBe(403);
        expect(response.json()).toMatchObject({ reason: 'TEAM_INACTIVE', displayToUser: true });
      }
      expect(await teamParticipants(db(), team.id)).toEqual(before);
      expect(await auditSince(db(), mark)).toEqual([]);
    });
  }
});

describe('the viewer', () => {
  it('reads participants of the trials they are a trial user of', async () => {
    const viewerClient = await signIn(ctx.app, db(), viewer);
    const trial = await createTrial(db(), adminClient, [viewer.email]);
    const hidden = await createTrial(db(), adminClient);
    await addParticipant(adminClient, { trialId: trial.id });
    const { participantId } = await addParticipant(adminClient, { trialId: hidden.id });
    expect((await viewerClient.get(`/api/trialParticipants/${trial.id}`)).json()).toHaveLength(1);
    const refused = await viewerClient.get(`/api/trialParticipants/${hidden.id}`);
    expect(refused.statusCode).toBe(404);
    expect(refused.json().message).toBe(TRIAL_MESSAGES.notFound);
    expect((await viewerClient.get(`/api/participant/${participantId}`)).statusCode).toBe(404);
  });
});
