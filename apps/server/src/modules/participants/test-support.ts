import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Db } from '../../db/client';
import { participants, teams, trials } from '../../db/schema';
import type { TestClient } from '../../test/fixtures';

let counter = 0;

/** A trial made through the API by `admin` (Admin or Sys_Admin), with the given trial users. */
export async function createTrial(
  db: Db,
  admin: TestClient,
  trialUserEmails: string[] = [],
): Promise<{ id: number; teamId: number; trialCode: string }> {
  const created = await admin.post('/api/userTrials', {
    trialNumber: `P-${process.pid}-${++counter}`,
    trialName: 'Participants fixture',
    trialNotes: '',
  });
  expect(created.statusCode, created.body).toBe(200);
  const trialId = created.json().trialId as number;
  for (const userEmail of trialUserEmails) {
    const added = await admin.post('/api/trialUsers', { userEmail, trialId });
    expect(added.statusCode, added.body).toBe(200);
  }
  const [row] = await db.select().from(trials).where(eq(trials.id, trialId));
  return { id: row!.id, teamId: row!.teamId, trialCode: row!.trialCode };
}

/** Adds a participant through the API and expects success; answers its id and code. */
export async function addParticipant(
  client: TestClient,
  body: Record<string, unknown>,
): Promise<{ participantId: number; participant_code: string; participant_code_suffix: string }> {
  const response = await client.post('/api/trialParticipants', { gender: 'none', ...body });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

export async function participantRow(db: Db, id: number) {
  return (await db.select().from(participants).where(eq(participants.id, id)))[0];
}

export async function teamRow(db: Db, id: number) {
  return (await db.select().from(teams).where(eq(teams.id, id)))[0]!;
}

/** Participants of a team as stored (for before/after comparisons). */
export async function teamParticipants(db: Db, teamId: number) {
  return db
    .select()
    .from(participants)
    .where(eq(participants.teamId, teamId))
    .orderBy(participants.id);
}
