import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api-client';

/**
 * The demo outbox (`GET /api/dev/mailbox`, demo mode only; 404 otherwise). Shared by the
 * /DevMailbox route gate, the page itself and the discreet "Demo mailbox" links.
 */
export const devMailSchema = z.object({
  id: z.union([z.number(), z.string()]),
  to: z.string().catch(''),
  subject: z.string().catch(''),
  text: z.string().nullable().catch(null),
  html: z.string().nullable().catch(null),
  template: z.string().nullable().catch(null),
  status: z.string().nullable().catch(null),
  createdAt: z.string().catch(''),
});
export type DevMail = z.infer<typeof devMailSchema>;

export const devMailboxQueryKey = ['dev-mailbox'] as const;

export async function getDevMailbox(): Promise<DevMail[]> {
  return z.array(devMailSchema).parse(await api.get<unknown>('/dev/mailbox'));
}

export function useDevMailbox() {
  return useQuery({ queryKey: devMailboxQueryKey, queryFn: getDevMailbox, retry: false });
}

/** `true` once the mailbox answered 200, `false` when it did not, `undefined` meanwhile. */
export function useDevMailboxAvailable(): boolean | undefined {
  const query = useDevMailbox();
  return query.isPending ? undefined : query.isSuccess;
}
