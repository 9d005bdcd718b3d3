import { Readable, pipeline } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ADHERENCE_CSV_COLUMNS,
  adherenceCsvQuerySchema,
  completenessGridSchema,
  completenessRangeSchema,
  completenessStripsSchema,
  completenessThresholdsSchema,
  digestSubscriptionSchema,
  trialIdSchema,
} from '@trialpulse/shared';
import type { AuthContext } from '../auth/session-context';
import type { CompletenessService } from './completeness.service';

type Options = { completeness: CompletenessService };

const trialIdParams = z.object({ trialId: trialIdSchema });
const idList = z
  .string()
  .regex(/^\d+(,\d+){0,999}$/, 'Give up to 1000 participant ids separated by commas')
  .transform((value) => value.split(',').map(Number));
const SCOPE_NOTE =
  "403 TEAM_INACTIVE when the selected team is not Active; another team's trial, or one a User/Viewer is not a trial user of, answers 404.";

/**
 * Data completeness and sync health of a trial (issue 20): every staff role reads what it
 * sees; thresholds are Sys_Admin and Admin only. Readings never leave the database for
 * the grid: the server sends per-day aggregates.
 */
export const completenessRoutes: FastifyPluginAsyncZod<Options> = async (app, options) => {
  const { completeness } = options;
  const anyStaff = app.requireStaff({ action: 'completeness.view' });
  const admins = app.requireStaff({ action: 'completeness.thresholds' });
  const caller = (request: { auth: AuthContext | null }) => request.auth!;

  app.get(
    '/api/trials/:trialId/completeness',
    {
      schema: {
        tags: ['completeness'],
        summary: 'Participant × day adherence grid of the last 14, 30 or 90 days, worst first',
        description: SCOPE_NOTE,
        params: trialIdParams,
        querystring: z.object({ days: completenessRangeSchema.default(14) }),
        response: { 200: completenessGridSchema },
      },
      preValidation: anyStaff,
    },
    async (request) =>
      completeness.grid(caller(request), request.params.trialId, request.query.days),
  );

  app.get(
    '/api/trials/:trialId/completeness/strips',
    {
      schema: {
        tags: ['completeness'],
        summary:
          "The last 14 days' states of the given participants (the trial page's visible rows)",
        description: SCOPE_NOTE,
        params: trialIdParams,
        querystring: z.object({ participantIds: idList }),
        response: { 200: completenessStripsSchema },
      },
      preValidation: anyStaff,
    },
    async (request) =>
      completeness.strips(caller(request), request.params.trialId, request.query.participantIds),
  );

  app.put(
    '/api/trials/:trialId/completeness/thresholds',
    {
      schema: {
        tags: ['completeness'],
        summary: "Set the trial's adherence thresholds (Sys_Admin, Admin); audited",
        description: SCOPE_NOTE,
        params: trialIdParams,
        body: completenessThresholdsSchema,
        response: { 200: completenessThresholdsSchema },
      },
      preValidation: admins,
    },
    async (request) =>
      completeness.updateThresholds(caller(request), request.params.trialId, request.body, {
        requestId: request.id,
      }),
  );

  app.get(
    '/api/trials/:trialId/completeness/digest',
    {
      schema: {
        tags: ['completeness'],
        summary: "Whether the caller gets the trial's daily alert digest",
        params: trialIdParams,
        response: { 200: digestSubscriptionSchema },
      },
      preValidation: anyStaff,
    },
    async (request) => completeness.digestSubscription(caller(request), request.params.trialId),
  );

  app.put(
    '/api/trials/:trialId/completeness/digest',
    {
      schema: {
        tags: ['completeness'],
        summary: "Opt in to or out of the trial's daily alert digest (off by default)",
        params: trialIdParams,
        body: digestSubscriptionSchema,
        response: { 200: digestSubscriptionSchema },
      },
      preValidation: anyStaff,
    },
    async (request) =>
      completeness.setDigestSubscription(
        caller(request),
        request.params.trialId,
        request.body.subscribed,
      ),
  );

  app.get(
    '/api/trials/:trialId/completeness/adherence.csv',
    {
      schema: {
        tags: ['completeness'],
        summary: 'Adherence CSV: one row per participant and day of [from, to] (at most 366 days)',
        description: SCOPE_NOTE,
        params: trialIdParams,
        querystring: adherenceCsvQuerySchema,
        produces: ['text/csv'],
      },
      preValidation: anyStaff,
    },
    async (request, reply) => {
      const { from, to } = request.query;
      const { rows } = await completeness.adherenceRows(
        caller(request),
        request.params.trialId,
        from,
        to,
        {
          requestId: request.id,
        },
      );
      const csv = stringify({ header: true, columns: [...ADHERENCE_CSV_COLUMNS] });
      // pipeline, not pipe: a failure of the rows (a database error mid-stream) destroys the
      // CSV stream with it, and Fastify ends the response (the error body while nothing was
      // sent yet, else a cut connection) and logs it. With pipe the rows' error had no
      // listener and stopped the process. A closed connection stops the rows' queries.
      pipeline(Readable.from(rows), csv, (error) => {
        if (!error) return;
        if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE')
          request.log.info('adherence CSV: the client closed the connection');
        else request.log.error({ err: error }, 'adherence CSV failed while streaming');
      });
      return reply
        .type('text/csv; charset=utf-8')
        .header(
          'content-disposition',
          `attachment; filename="adherence-trial-${request.params.trialId}-${from}-${to}.csv"`,
        )
        .header('cache-control', 'no-store')
        .send(csv);
    },
  );
};
