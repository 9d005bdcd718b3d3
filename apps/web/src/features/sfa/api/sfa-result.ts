import { z } from 'zod';

/** The `{success, message}` answer of the second-factor calls, read leniently. */
export const sfaResultSchema = z.object({
  success: z.boolean().catch(false),
  message: z.string().optional().catch(undefined),
});
export type SfaResult = z.infer<typeof sfaResultSchema>;

export function readSfaResult(data: unknown): SfaResult {
  return sfaResultSchema.parse(data ?? {});
}
