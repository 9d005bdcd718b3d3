import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pagedSchema, participantSchema, trialSchema } from '@trialpulse/shared';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient } from '../../test/fixtures';
import { signIn } from '../trials/test-support';

/**
 * Deep and filtered list pages (issue 29, decisions 0202–0204: kept totals, deep pages read
 * by their keys, the filter through trigram indexes and the owner's ids) answer exactly the
 * rows and totals of a from-scratch query: every row of the scope, filtered with ILIKE over
 * the searched columns, ordered and sliced here.
 */
const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
let ctx: TestApp;
const db = () => ctx.database.db;
let teamId: number;
let admin: TestClient;
let bigTrialId: number;
const trialsPage = pagedSchema(trialSchema);
const participantsPage = pagedSchema(participantSchema);

beforeAll(async () => {
  ctx = await createTestApp();
  teamId = (await createTeam(db(), { maxTrials: 500, maxParticipants: 5000, hiddenFields: [] })).id;
  const adminAccount = await createStaffUser(db(), { role: 'Admin', teamId });
  const otherOwner = await createStaffUser(db(), { role: 'Admin', teamId });
  admin = await signIn(ctx.app, db(), adminAccount);
  // 230 trials, two owners; numbers and names with equal prefixes in both cases.
  await db().execute(sql`
    INSERT INTO trials (team_id, trial_number, trial_name, trial_notes, trial_code, owner_user_id, creation_date)
    SELECT ${teamId}, CASE WHEN n % 2 = 0 THEN 'num-' ELSE 'NUM-' END || lpad(n::text, 3, '0'),
           'Trial ' || (n % 40), CASE WHEN n % 7 = 0 THEN 'Needle note ' || n END,
           'R' || lpad(n::text, 4, '0'), CASE WHEN n % 5 = 0 THEN ${otherOwner.id}::int ELSE ${adminAccount.id}::int END,
           timestamptz '2026-01-01T00:00:00Z' + (n % 50) * interval '1 hour'
    FROM generate_series(1, 230) AS n`);
  bigTrialId = Number(
    (
      await db().execute<{ id: number }>(
        sql`SELECT id FROM trials WHERE team_id = ${teamId} ORDER BY id LIMIT 1`,
      )
    ).rows[0]!.id,
  );
  // 420 participants in one trial, 3 in each other one; codes with mixed case.
  await db().execute(sql`
    INSERT INTO participants (team_id, trial_id, participant_code, participant_code_suffix, email, gender, age, notes)
    SELECT ${teamId}, t.id, t.trial_code || '-' || lpad(n::text, 4, '0'), lpad(n::text, 4, '0'),
           CASE WHEN n % 3 <> 0 THEN 'p' || t.id || '-' || n || '@study.example.org' END,
           (ARRAY['female', 'male', 'other', 'none'])[n % 4 + 1]::participant_gender,
           CASE WHEN n % 9 <> 0 THEN 18 + n % 70 END,
           CASE WHEN n % 5 = 0 THEN 'Visit ' || n % 12 || ' Needle' END
    FROM trials AS t, generate_series(1, CASE WHEN t.id = ${bigTrialId} THEN 420 ELSE 3 END) AS n
    WHERE t.team_id = ${teamId}`);
});

afterAll(async () => {
  await ctx?.close();
});

/** The ids of a from-scratch query, in its order. */
async function idsOf(query: ReturnType<typeof sql>) {
  return (await db().execute<{ id: number }>(query)).rows.map((row) => Number(row.id));
}

const likeOf = (filter: string) => `%${filter.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

describe(`deep and filtered list pages against a from-scratch query (${MODE})`, () => {
  it('trials: every page of each order, filtered and not', async () => {
    const orders = {
      '': sql`t.creation_date DESC, t.id DESC`,
      'sortBy=trialNumber&sortDir=asc': sql`lower(t.trial_number) ASC, t.creation_date DESC, t.id DESC`,
      'sortBy=trialNumber&sortDir=desc': sql`lower(t.trial_number) DESC, t.creation_date DESC, t.id DESC`,
      'sortBy=trialName&sortDir=asc': sql`lower(t.trial_name) ASC, t.creation_date DESC, t.id DESC`,
      'sortBy=trialOwnerEmail&sortDir=desc': sql`lower(u.email) DESC, t.creation_date DESC, t.id DESC`,
    };
    const ownerEmail = (
      await db().execute<{ email: string }>(
        sql`SELECT u.email FROM users u JOIN trials t ON t.owner_user_id = u.id WHERE t.team_id = ${teamId} AND t.id % 5 = 0 LIMIT 1`,
      )
    ).rows[0]!.email;
    // The last two span two fields (a Number's end, the name's start): nothing holds them.
    const filters = ['', 'needle', 'NUM-1', 'trial 3', ownerEmail.slice(0, 12), '0_'];
    for (const filter of [...filters, '001trial', '001\u001ftrial']) {
      const condition =
        filter === ''
          ? sql`true`
          : sql`(t.trial_number ILIKE ${likeOf(filter)} OR t.trial_name ILIKE ${likeOf(filter)} OR t.trial_notes ILIKE ${likeOf(filter)} OR u.email ILIKE ${likeOf(filter)})`;
      for (const [sort, order] of Object.entries(orders)) {
        const scratch = await idsOf(
          sql`SELECT t.id FROM trials t JOIN users u ON u.id = t.owner_user_id WHERE t.team_id = ${teamId} AND ${condition} ORDER BY ${order}`,
        );
        for (const pageIndex of [0, 1, 10, 12, 22, 23, 30]) {
          const response = await admin.get(
            `/api/userTrials?pageIndex=${pageIndex}&pageSize=10&filter=${encodeURIComponent(filter)}&${sort}`,
          );
          expect(response.statusCode, response.body).toBe(200);
          const page = trialsPage.parse(response.json());
          const where = `filter "${filter}", ${sort || 'default order'}, page ${pageIndex}`;
          expect(page.total, where).toBe(scratch.length);
          expect(
            page.rows.map((row) => row.trialId),
            where,
          ).toEqual(scratch.slice(pageIndex * 10, pageIndex * 10 + 10));
        }
      }
    }
  });

  it('participants: every page of each order, filtered and not', async () => {
    const orders = {
      '': sql`p.id ASC`,
      'sortBy=participant_code&sortDir=asc': sql`lower(p.participant_code) ASC, p.id ASC`,
      'sortBy=participant_code&sortDir=desc': sql`lower(p.participant_code) DESC, p.id ASC`,
      'sortBy=age&sortDir=desc': sql`p.age DESC, p.id ASC`,
      'sortBy=email&sortDir=asc': sql`lower(p.email) ASC, p.id ASC`,
    };
    await expectParticipantPages([], PARTICIPANT_FILTERS, orders, [0, 9, 10, 25, 41, 42, 50]);
  });

  // A team that hides e-mail or notes searches the other fields only (decision 0266: the
  // three always searched as one stored text, the visible one by its own column).
  it('participants: filtered pages of a team that hides e-mail, notes or both', async () => {
    const orders = {
      '': sql`p.id ASC`,
      'sortBy=participant_code&sortDir=desc': sql`lower(p.participant_code) DESC, p.id ASC`,
    };
    try {
      for (const hidden of [['email', 'notes'], ['email'], ['notes']]) {
        await expectParticipantPages(hidden, PARTICIPANT_FILTERS, orders, [0, 1, 41]);
      }
    } finally {
      await db().execute(sql`UPDATE teams SET hidden_fields = '{}' WHERE id = ${teamId}`);
    }
  });
});

/**
 * Participant filters: within one field, and (after the first line) spanning two fields'
 * boundary, as the stored search texts join them (code|gender|age|e-mail|notes): no field
 * holds those, with or without U+001F between them.
 */
const PARTICIPANT_FILTERS = [
  ...['', 'needle', '-01', 'male', '33', 'VISIT 1', 'study.example', 'R0001-0001'],
  ...['0001male', '0001\u001fmale', 'male\u001f19', '19\u001fp', 'org\u001fvisit', '\u001f'],
];

/**
 * Every page asked of the big trial's participants, with the team hiding `hidden`, equals
 * a from-scratch ILIKE over the fields the team shows.
 */
async function expectParticipantPages(
  hidden: string[],
  filters: string[],
  orders: Record<string, ReturnType<typeof sql>>,
  pageIndexes: number[],
) {
  await db().execute(
    sql`UPDATE teams SET hidden_fields = ${`{${hidden.join(',')}}`}::text[] WHERE id = ${teamId}`,
  );
  const fields = [
    sql`p.participant_code`,
    ...(hidden.includes('email') ? [] : [sql`p.email`]),
    sql`p.gender::text`,
    sql`p.age::text`,
    ...(hidden.includes('notes') ? [] : [sql`p.notes`]),
  ];
  for (const filter of filters) {
    const condition =
      filter === ''
        ? sql`true`
        : sql`(${sql.join(
            fields.map((field) => sql`${field} ILIKE ${likeOf(filter)}`),
            sql` OR `,
          )})`;
    for (const [sort, order] of Object.entries(orders)) {
      const scratch = await idsOf(
        sql`SELECT p.id FROM participants p WHERE p.trial_id = ${bigTrialId} AND ${condition} ORDER BY ${order}`,
      );
      for (const pageIndex of pageIndexes) {
        const response = await admin.get(
          `/api/trialParticipants/${bigTrialId}?pageIndex=${pageIndex}&pageSize=10&filter=${encodeURIComponent(filter)}&${sort}`,
        );
        expect(response.statusCode, response.body).toBe(200);
        const page = participantsPage.parse(response.json());
        const where = `hiding [${hidden.join(', ')}], filter ${JSON.stringify(filter)}, ${sort || 'default order'}, page ${pageIndex}`;
        expect(page.total, where).toBe(scratch.length);
        expect(
          page.rows.map((row) => row.id),
          where,
        ).toEqual(scratch.slice(pageIndex * 10, pageIndex * 10 + 10));
      }
    }
  }
}
