import { z } from 'zod';
import {
  OMRON_CATEGORIES,
  OMRON_DEFAULT_START_DAYS,
  OMRON_MESSAGES,
  OMRON_RESULT_LIMITS,
  type OmronQuery,
} from '@trialpulse/shared/device-data/device-data.schemas';

/** Today in the browser's time zone, `yyyy-MM-dd`. */
export function localToday(now: Date = new Date()): string {
  const local = new Date(now.getTime() - now.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 10);
}

export function daysBack(days: number, now: Date = new Date()): string {
  return localToday(new Date(now.getTime() - days * 86_400_000));
}

/** The form's fields as the inputs hold them (empty = not chosen). */
export type OmronFormValues = { category: string; since: string; limit: string };

/** The Omron form (§5): the three required messages, and no start date after today. */
export const omronFormSchema = z.object({
  category: z
    .string()
    .refine(
      (value) => (OMRON_CATEGORIES as readonly string[]).includes(value),
      OMRON_MESSAGES.category,
    ),
  since: z
    .string()
    .min(1, OMRON_MESSAGES.since)
    .refine((value) => value <= localToday(), OMRON_MESSAGES.sinceInFuture),
  limit: z
    .string()
    .refine(
      (value) => (OMRON_RESULT_LIMITS as readonly number[]).map(String).includes(value),
      OMRON_MESSAGES.limit,
    ),
});

/** Blood pressure from 7 days back, all results (§9). */
export function defaultOmronForm(): OmronFormValues {
  return { category: 'bloodpressure', since: daysBack(OMRON_DEFAULT_START_DAYS), limit: '0' };
}

export const EMPTY_OMRON_FORM: OmronFormValues = { category: '', since: '', limit: '' };

export function toOmronQuery(values: OmronFormValues): OmronQuery {
  return {
    queryStr: values.category as OmronQuery['queryStr'],
    since: values.since,
    sortOrder: 'asc',
    limit: Number(values.limit),
  };
}

export const RESULT_LIMIT_LABEL = (limit: number) => (limit === 0 ? 'All' : String(limit));
