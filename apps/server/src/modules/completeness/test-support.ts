import { eq } from 'drizzle-orm';
import type { DeviceBrandName } from '@trialpulse/shared';
import type { Db } from '../../db/client';
import { globalDeviceCatalog, participantDevices, participantDeviceStatus } from '../../db/schema';
import { allowAllBrands } from '../devices/test-support';

const UPSTREAM = { Fitbit: 'google-health', Omron: 'omron', Dexcom: 'dexcom' } as const;

/**
 * A stored connection as linking and sync leave it (tests): authorised since
 * `authorizedAt`, or needing re-consent, with the battery and last upload a device list
 * reported. Written directly: the completeness module only reads connections.
 */
export async function addConnection(
  db: Db,
  options: {
    teamId: number;
    participantId: number;
    brand: DeviceBrandName;
    authorizedAt: Date;
    needsReconsent?: boolean;
    battery?: string | null;
    batteryLevel?: number | null;
    deviceLastSyncAt?: Date | null;
  },
): Promise<void> {
  await allowAllBrands(db, options.teamId);
  const [catalog] = await db
    .select({ id: globalDeviceCatalog.id })
    .from(globalDeviceCatalog)
    .where(eq(globalDeviceCatalog.manufacturer, options.brand))
    .limit(1);
  const [connection] = await db
    .insert(participantDevices)
    .values({
      teamId: options.teamId,
      participantId: options.participantId,
      globalDeviceCatalogId: catalog!.id,
      upstream: UPSTREAM[options.brand],
      accessTokenEncrypted: options.needsReconsent ? null : 'not-a-real-token',
      refreshTokenEncrypted: options.needsReconsent ? null : 'not-a-real-token',
      authorizationStatus: options.needsReconsent ? 'error' : 'authorized',
      authorizationDate: options.authorizedAt,
      needsReconsent: options.needsReconsent ?? false,
      createdAt: options.authorizedAt,
    })
    .returning({ id: participantDevices.id });
  // What the provider's device list last said (battery, last upload), as a status read stores it.
  const { battery = null, batteryLevel = null, deviceLastSyncAt = null } = options;
  if (battery !== null || batteryLevel !== null || deviceLastSyncAt !== null) {
    await db.insert(participantDeviceStatus).values({
      participantDeviceId: connection!.id,
      teamId: options.teamId,
      checkedAt: options.authorizedAt,
      devices: [
        {
          device: options.brand,
          deviceVersion: null,
          deviceType: null,
          batteryLevel,
          battery,
          lastSyncTime: deviceLastSyncAt?.toISOString() ?? null,
          hasError: false,
          errorType: null,
        },
      ],
    });
  }
}
