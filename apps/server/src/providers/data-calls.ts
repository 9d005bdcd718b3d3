import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DeviceBrandName } from '@trialpulse/shared';
import type { Clock } from '../lib/clock';
import type { Meta } from '../lib/request-meta';
import type { AuthContext } from '../modules/auth/session-context';
import type { UpstreamClient } from '../modules/devices/core/provider-registry';
import type { ReadingInput, ReadingsService } from '../modules/sync/readings.service';

/**
 * A brand's own spec data calls (Omron's lists, Dexcom's records; decision 0140): the
 * device-data module lends them what every data call needs — the access check, a provider call
 * on the participant's connection with the spec's error texts, the readings service and the
 * clock — and registers the routes each plugin declares (`ProviderPlugin.dataRoutes`). The
 * brand folder holds the call (stored when the sync covers the range, else live) and its routes.
 */
export type BrandDataContext = {
  /** Asks the access module first: role, team, trial visibility (404, never 403). */
  participantFor(
    auth: AuthContext,
    participantId: number,
    action?: 'data.view' | 'data.viewRaw',
  ): Promise<ParticipantScope>;
  /**
   * Runs a provider call on the participant's connection of the brand (refreshed and retried
   * through the single-flight refresh); a failure becomes the spec's answer: 429 Too Many
   * Requests, 502 invalid data format, else 502 with the brand's `failed` text.
   */
  live<T>(
    auth: AuthContext,
    scope: ParticipantScope,
    brand: { brand: DeviceBrandName; failed: string },
    meta: Meta,
    call: (client: UpstreamClient, accessToken: string) => Promise<T>,
  ): Promise<T>;
  readings: Pick<ReadingsService, 'covers' | 'read'>;
  clock: Clock;
};

export type ParticipantScope = { id: number; teamId: number };

/** Registers a brand's data routes on the device-data routes' instance. */
export type BrandDataRoutes = (
  app: Parameters<FastifyPluginAsyncZod>[0],
  context: BrandDataContext,
) => void;

/**
 * The signed-in staff member of a data route: its `preValidation` guard (`requireStaff`) has
 * refused every request without one, so the handler may take it as present.
 */
export const caller = (request: { auth: AuthContext | null }) => request.auth!;

export const participantParams = z.object({ id: z.coerce.number().int().positive() });
export const DATA_SCOPE_NOTE =
  'Every staff role, for participants it can see; a participant of another team, or of a trial a User or Viewer is not a trial user of, answers 404.';
export const DATA_SOURCE_NOTE =
  'Answered from stored readings when the sync covers the range (`source: "stored"`), otherwise from the provider (`source: "live"`); both answers are alike.';

/** Last one wins per key, as the write path de-duplicates: a live answer then equals a stored one. */
export function dedupeReadings(rows: readonly ReadingInput[]): ReadingInput[] {
  const unique = new Map<string, ReadingInput>();
  for (const row of rows) unique.set(`${row.metricKey}|${row.recordedAt.getTime()}`, row);
  return [...unique.values()];
}
