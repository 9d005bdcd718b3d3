import { z } from 'zod';

/**
 * The legacy Fitbit Web API's answer shapes (provider-apis §1.5) that
 * getFitbitServerParticipantData returns, whichever upstream or store answered.
 */

/** One day of an activity series: values are strings, as Fitbit sends them. */
export const fitbitSeriesEntrySchema = z.object({
  dateTime: z.string(),
  value: z.string(),
});
export type FitbitSeriesEntry = z.infer<typeof fitbitSeriesEntrySchema>;

/** `{"activities-steps":[{dateTime,value}]}`; the key is `activities-` + resource. */
export const fitbitActivitySeriesResponseSchema = z.record(
  z.string().regex(/^activities-[a-zA-Z]+$/),
  z.array(fitbitSeriesEntrySchema),
);
export type FitbitActivitySeriesResponse = z.infer<typeof fitbitActivitySeriesResponseSchema>;
