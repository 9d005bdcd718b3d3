import { and, desc, eq, sql } from 'drizzle-orm';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ERROR_REASONS,
  listAnswerSchema,
  listQuerySchema,
  type ListQuery,
} from '@trialpulse/shared';
import type { Database } from '../db/client';
import { trials, users } from '../db/schema';
import { errorHandlerPlugin } from '../plugins/error-handler';
import { createStaffUser, createTeam } from '../test/fixtures';
import { createTestDatabase } from '../test/test-database';
import { defineList, listAnswer, ListStatements, selectPage, textSort } from './paging';

/**
 * The paging helper against a real database (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL), and through a Fastify route with the app's zod compilers and error
 * handler, as every list route uses it.
 */

let database: Database;
let teamId: number;
let otherTeamId: number;
let ownerEmails: { first: string; second: string };

const SORTS = ['trialNumber', 'trialName', 'ownerEmail'] as const;
const trialList = defineList<(typeof SORTS)[number]>({
  sortable: {
    trialNumber: textSort(trials.trialNumber),
    trialName: textSort(trials.trialName),
    ownerEmail: textSort(users.email),
  },
  searchable: [trials.trialNumber, trials.trialName, trials.trialNotes, users.email],
  defaultOrder: [desc(trials.id)],
});
const querySchema = listQuerySchema(SORTS);

type ListMode = 'built per call' | 'prepared per shape';
let mode: ListMode = 'built per call';
/** One shape cache for every prepared call of this file, as a repository keeps one. */
const statements = new ListStatements();
let builds = 0;

/** The test's trials list, as `mode` runs it: values built in, or placeholders bound per call. */
function listTrials(query: ListQuery<(typeof SORTS)[number]>, team = teamId) {
  const prepared = mode === 'prepared per shape';
  const teamValue = prepared ? sql.placeholder('teamId') : team;
  return selectPage(
    query,
    trialList,
    (filter, total) => {
      builds += 1;
      return database.db
        .select({
          id: trials.id,
          trialNumber: trials.trialNumber,
          trialName: trials.trialName,
          ownerEmail: users.email,
          total,
        })
        .from(trials)
        .innerJoin(users, eq(users.id, trials.ownerUserId))
        .where(and(eq(trials.teamId, teamValue), filter))
        .$dynamic();
    },
    prepared ? { prepared: { statements, shape: 'test trials', values: { teamId: team } } } : {},
  );
}

const parse = (params: Record<string, string>) => querySchema.parse(params);

// 25 trials: T-01 … T-25; names alternate upper/lower case; odd ones owned by `first`.
const names = Array.from({ length: 25 }, (_, i) =>
  i % 2 === 0 ? `alpha ${i + 1}` : `BETA ${i + 1}`,
);

beforeAll(async () => {
  database = await createTestDatabase();
  const team = await createTeam(database.db);
  const otherTeam = await createTeam(database.db);
  teamId = team.id;
  otherTeamId = otherTeam.id;
  const first = await createStaffUser(database.db, { role: 'Admin', teamId });
  const second = await createStaffUser(database.db, { role: 'Admin', teamId });
  ownerEmails = { first: first.email, second: second.email };
  await database.db.insert(trials).values(
    names.map((name, i) => ({
      teamId,
      trialNumber: `T-${String(i + 1).padStart(2, '0')}`,
      trialName: name,
      trialNotes: i === 6 ? 'dose 50%_off' : '',
      trialCode: `C${i + 1}`,
      ownerUserId: i % 2 === 0 ? first.id : second.id,
    })),
  );
  // Another team's trials never count towards this team's list.
  await database.db.insert(trials).values(
    [1, 2, 3].map((i) => ({
      teamId: otherTeamId,
      trialNumber: `T-0${i}`,
      trialName: `alpha other ${i}`,
      trialCode: `O${i}`,
      ownerUserId: first.id,
    })),
  );
});

afterAll(async () => {
  await database?.close();
});

describe.each(['built per call', 'prepared per shape'] as const)('selectPage, %s', (listMode) => {
  beforeAll(() => {
    mode = listMode;
  });
  afterAll(() => {
    mode = 'built per call';
  });

  it('answers the whole list in the default order without a page', async () => {
    const result = await listTrials(parse({}));
    expect(result.total).toBe(25);
    expect(result.rows.map((row) => row.trialNumber)).toEqual(
      Array.from({ length: 25 }, (_, i) => `T-${String(25 - i).padStart(2, '0')}`),
    );
  });

  it('answers one page and the total of the whole list', async () => {
    const result = await listTrials(parse({ pageIndex: '1', pageSize: '10' }));
    expect(result.total).toBe(25);
    expect(result.rows.map((row) => row.trialNumber)).toEqual(
      Array.from({ length: 10 }, (_, i) => `T-${String(15 - i).padStart(2, '0')}`),
    );

    const last = await listTrials(parse({ pageIndex: '2', pageSize: '10' }));
    expect(last.total).toBe(25);
    expect(last.rows).toHaveLength(5);
  });

  it('sorts by a column id, case-insensitively, in either direction, ties broken by id', async () => {
    const ascending = await listTrials(parse({ pageSize: '50', sortBy: 'trialName' }));
    const expected = [...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
    expect(ascending.rows.map((row) => row.trialName)).toEqual(expected);

    const descending = await listTrials(
      parse({ pageSize: '50', sortBy: 'trialName', sortDir: 'desc' }),
    );
    expect(descending.rows.map((row) => row.trialName)).toEqual([...expected].reverse());

    // Equal owner emails: the default order (newest id first) decides within each owner.
    const byOwner = await listTrials(parse({ pageSize: '10', sortBy: 'ownerEmail' }));
    const ids = byOwner.rows.map((row) => row.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(byOwner.rows.map((row) => row.ownerEmail)).size).toBe(1);
  });

  it('filters on any searched column, case-insensitively, and counts only the kept rows', async () => {
    const beta = await listTrials(parse({ pageSize: '10', filter: '  beta ' }));
    expect(beta.total).toBe(12);
    expect(beta.rows).toHaveLength(10);
    expect(beta.rows.every((row) => row.trialName.startsWith('BETA'))).toBe(true);

    const byOwnerEmail = await listTrials(
      parse({ pageSize: '50', filter: ownerEmails.first.toUpperCase() }),
    );
    expect(byOwnerEmail.total).toBe(13);
    expect(byOwnerEmail.rows.every((row) => row.ownerEmail === ownerEmails.first)).toBe(true);

    // Without a page the filter still applies (the answer is the filtered whole list).
    expect((await listTrials(parse({ filter: 'T-2' }))).total).toBe(6);
  });

  it('treats LIKE wildcards in the filter as plain characters', async () => {
    const percent = await listTrials(parse({ pageSize: '10', filter: '50%_' }));
    expect(percent.rows.map((row) => row.trialNumber)).toEqual(['T-07']);
    expect((await listTrials(parse({ pageSize: '10', filter: '%' }))).total).toBe(1);
    expect((await listTrials(parse({ pageSize: '10', filter: '_' }))).total).toBe(1);
  });

  it('keeps the total on a page past the end and answers 0 when nothing matches', async () => {
    expect(await listTrials(parse({ pageIndex: '7', pageSize: '10' }))).toEqual({
      rows: [],
      total: 25,
    });
    expect(await listTrials(parse({ pageSize: '10', filter: 'no such trial' }))).toEqual({
      rows: [],
      total: 0,
    });
    expect(
      await listTrials(parse({ pageIndex: '3', pageSize: '10', filter: 'no such trial' })),
    ).toEqual({ rows: [], total: 0 });
  });

  it("stays inside the list's own scope", async () => {
    const result = await listTrials(parse({ pageSize: '10', filter: 'alpha' }), otherTeamId);
    expect(result.total).toBe(3);
  });
});

describe('selectPage with prepared shapes (decision 0110)', () => {
  beforeAll(() => {
    mode = 'prepared per shape';
  });
  afterAll(() => {
    mode = 'built per call';
  });

  it('builds each shape once and binds every call its own values', async () => {
    const query = parse({
      pageIndex: '0',
      pageSize: '10',
      sortBy: 'trialName',
      sortDir: 'desc',
      filter: 'alpha',
    });
    const before = builds;
    const ours = await listTrials(query);
    const afterFirst = builds;
    // The same shape for another team, then another filter text: no new build, own rows.
    const theirs = await listTrials(query, otherTeamId);
    const otherText = await listTrials({ ...query, filter: 'BETA' });
    expect(builds).toBe(afterFirst);
    expect(afterFirst).toBeGreaterThan(before);
    expect(ours.total).toBe(13);
    expect(ours.rows.map((row) => row.trialName).slice(0, 2)).toEqual(['alpha 9', 'alpha 7']);
    expect(theirs.total).toBe(3);
    expect(theirs.rows.map((row) => row.trialName)).toEqual([
      'alpha other 3',
      'alpha other 2',
      'alpha other 1',
    ]);
    expect(otherText.total).toBe(12);
    // Another page of the same shape binds its own offset.
    const second = await listTrials({ ...query, page: { index: 1, size: 10 } });
    expect(builds).toBe(afterFirst);
    expect(second.rows.map((row) => row.trialName)).toEqual(['alpha 13', 'alpha 11', 'alpha 1']);
  });

  it('refuses a shape with a value built in, which later callers would otherwise reuse', async () => {
    const ownStatements = new ListStatements();
    const builtIn = selectPage(
      parse({ pageIndex: '0', pageSize: '10' }),
      trialList,
      (filter, total) =>
        database.db
          .select({ id: trials.id, total })
          .from(trials)
          .innerJoin(users, eq(users.id, trials.ownerUserId))
          .where(and(eq(trials.teamId, teamId), filter))
          .$dynamic(),
      { prepared: { statements: ownStatements, shape: 'team built in', values: {} } },
    );
    await expect(builtIn).rejects.toThrow(/value built in/);
    expect(ownStatements.size).toBe(0);
  });

  it('keeps a bounded number of shapes', async () => {
    const ownStatements = new ListStatements();
    for (let shape = 0; shape < 503; shape += 1) {
      ownStatements.statement(`shape ${shape}`, () =>
        database.db
          .select({ id: trials.id })
          .from(trials)
          .where(eq(trials.teamId, sql.placeholder('teamId')))
          .$dynamic(),
      );
    }
    expect(ownStatements.size).toBe(500);
  });
});

describe('a list route using the helper', () => {
  let app: FastifyInstance;
  const rowSchema = z.object({ trialNumber: z.string(), trialName: z.string() });

  beforeAll(async () => {
    app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(errorHandlerPlugin);
    app
      .withTypeProvider<ZodTypeProvider>()
      .get(
        '/api/list',
        { schema: { querystring: querySchema, response: { 200: listAnswerSchema(rowSchema) } } },
        async (request) =>
          listAnswer(request.query, await listTrials(request.query), (row) => ({
            trialNumber: row.trialNumber,
            trialName: row.trialName,
          })),
      );
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('answers the spec array without paging parameters and { rows, total } with them', async () => {
    const whole = await app.inject({ method: 'GET', url: '/api/list' });
    expect(whole.statusCode).toBe(200);
    const body = whole.json();
    expect(Array.isArray(body)).toBe(true);
    expect(body).toHaveLength(25);
    expect(body[0]).toEqual({ trialNumber: 'T-25', trialName: names[24] });

    const paged = await app.inject({
      method: 'GET',
      url: '/api/list?pageIndex=0&pageSize=20&sortBy=trialNumber&sortDir=asc&filter=alpha',
    });
    expect(paged.statusCode).toBe(200);
    const page = paged.json();
    expect(page.total).toBe(13);
    expect(page.rows).toHaveLength(13);
    expect(page.rows[0]).toEqual({ trialNumber: 'T-01', trialName: 'alpha 1' });
  });

  it.each([
    ['sortBy=trialNotes', 'sortBy'],
    ['pageSize=5', 'pageSize'],
    ['pageSize=51', 'pageSize'],
    ['pageIndex=-1', 'pageIndex'],
    ['pageIndex=abc', 'pageIndex'],
    ['sortBy=trialName&sortDir=up', 'sortDir'],
    [`filter=${'x'.repeat(1000)}`, 'filter'],
  ])('refuses %s with 400 in the spec error body', async (params, field) => {
    const response = await app.inject({ method: 'GET', url: `/api/list?${params}` });
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body.reason).toBe(ERROR_REASONS.validation);
    expect(JSON.stringify(body.errors)).toContain(field);
  });
});
