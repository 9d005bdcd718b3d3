import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { routeConfig } from '../common/server';
import type { GeneratedPoint } from './points';

/**
 * What a participant changed in the Fitbit app after the data was generated, for tests of
 * how sync follows upstream edits (decision 0112): a point deleted (a weight log removed),
 * or a sleep session whose start was moved (the wake time stays, so it still ends in the
 * same windows). Keyed by account and point id (the last segment of a list point's `name`).
 *
 * | Method and path | Body | Answer |
 * | POST /__control/data-edits | { accountId, dataType, pointId, action: 'delete' } or { …, action: 'move-start', minutes } | 201 { edits } |
 * | GET /__control/data-edits | – | { edits } |
 * | DELETE /__control/data-edits | – | 204 |
 */
export const dataEditSchema = z.discriminatedUnion('action', [
  z.strictObject({
    accountId: z.string().min(1),
    dataType: z.string().min(1),
    pointId: z.string().min(1),
    action: z.literal('delete'),
  }),
  z.strictObject({
    accountId: z.string().min(1),
    dataType: z.literal('sleep'),
    pointId: z.string().min(1),
    action: z.literal('move-start'),
    /** Positive: a later start (a shorter night). */
    minutes: z.number().int().min(-720).max(720),
  }),
]);
export type DataEdit = z.infer<typeof dataEditSchema>;

export function createDataEdits() {
  let edits: DataEdit[] = [];

  /** The account's points of one type as edited: deleted ones left out, moved ones moved. */
  function apply(accountId: string, dataType: string, points: GeneratedPoint[]): GeneratedPoint[] {
    const mine = edits.filter((edit) => edit.accountId === accountId && edit.dataType === dataType);
    if (mine.length === 0) return points;
    const result: GeneratedPoint[] = [];
    for (const point of points) {
      const edit = mine.find((candidate) => candidate.pointId === point.id);
      if (!edit) result.push(point);
      else if (edit.action === 'move-start') result.push(movedSleepStart(point, edit.minutes));
    }
    return result;
  }

  function registerRoutes(app: FastifyInstance): void {
    const config = routeConfig('control');
    app.post('/__control/data-edits', { config }, async (request, reply) => {
      const parsed = dataEditSchema.safeParse(request.body);
      if (!parsed.success) return reply.code(400).send({ error: z.prettifyError(parsed.error) });
      edits = [
        ...edits.filter(
          (edit) =>
            !(edit.accountId === parsed.data.accountId && edit.pointId === parsed.data.pointId),
        ),
        parsed.data,
      ];
      return reply.code(201).send({ edits });
    });
    app.get('/__control/data-edits', { config }, async () => ({ edits }));
    app.delete('/__control/data-edits', { config }, async (_request, reply) => {
      edits = [];
      return reply.code(204).send();
    });
  }

  return {
    apply,
    registerRoutes,
    reset: () => {
      edits = [];
    },
  };
}

export type DataEdits = ReturnType<typeof createDataEdits>;

/**
 * A sleep session with its start moved by `minutes`: the interval's start (and the list
 * order), the time in bed and the time asleep change by as much; the stages are left as
 * they were (a manual edit in the Fitbit app leaves a classic log without them).
 */
function movedSleepStart(point: GeneratedPoint, minutes: number): GeneratedPoint {
  const shiftMs = minutes * 60_000;
  return {
    ...point,
    sortMs: point.sortMs + shiftMs,
    value: () => {
      const value = point.value();
      const interval = (value.interval ?? {}) as Record<string, unknown>;
      const summary = (value.summary ?? {}) as Record<string, unknown>;
      const less = (field: unknown) => String(Math.max(0, Number(field ?? 0) - minutes));
      return {
        ...value,
        interval: {
          ...interval,
          startTime: new Date(Date.parse(String(interval.startTime)) + shiftMs).toISOString(),
        },
        summary: {
          ...summary,
          ...(summary.minutesAsleep !== undefined && {
            minutesAsleep: less(summary.minutesAsleep),
          }),
          ...(summary.minutesInSleepPeriod !== undefined && {
            minutesInSleepPeriod: less(summary.minutesInSleepPeriod),
          }),
        },
      };
    },
  };
}
