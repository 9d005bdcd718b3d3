import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { BRANDS } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export const deviceCatalogEntrySchema = z.object({
  id: z.number().int(),
  manufacturer: z.enum(BRANDS),
  device_type: z.string().nullable(),
  device_name: z.string(),
});
export type DeviceCatalogEntry = z.infer<typeof deviceCatalogEntrySchema>;

/** `GET /api/admin/deviceCatalog` (Sys_Admin): the devices a team may be given. */
export async function getDeviceCatalog(): Promise<DeviceCatalogEntry[]> {
  return z.array(deviceCatalogEntrySchema).parse(await api.get<unknown>('/admin/deviceCatalog'));
}

export function useDeviceCatalog() {
  return useQuery({ queryKey: ['device-catalog'], queryFn: getDeviceCatalog, staleTime: Infinity });
}
