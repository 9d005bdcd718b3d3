import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { digestSubscriptionSchema, type DigestSubscription } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { completenessQueryKey } from './get-completeness-grid';

const digestKey = (trialId: number) => [...completenessQueryKey(trialId), 'digest'] as const;

/** `GET /api/trials/{trialId}/completeness/digest`: whether the caller gets the daily digest. */
export async function getDigestSubscription(trialId: number): Promise<DigestSubscription> {
  return digestSubscriptionSchema.parse(
    await api.get<unknown>(`/trials/${trialId}/completeness/digest`),
  );
}

export function useDigestSubscription(trialId: number) {
  return useQuery({ queryKey: digestKey(trialId), queryFn: () => getDigestSubscription(trialId) });
}

/** `PUT /api/trials/{trialId}/completeness/digest`: opt in or out (per user, off by default). */
export function useSetDigestSubscription(trialId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (subscribed: boolean) =>
      digestSubscriptionSchema.parse(
        await api.put<unknown>(`/trials/${trialId}/completeness/digest`, { subscribed }),
      ),
    onSuccess: (data) => queryClient.setQueryData(digestKey(trialId), data),
  });
}
