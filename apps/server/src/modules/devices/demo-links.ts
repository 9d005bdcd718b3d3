import { eq } from 'drizzle-orm';
import type { DeviceBrandName } from '@trialpulse/shared';
import type { Database } from '../../db/client';
import { participantDevices, participants } from '../../db/schema';
import { recordAudit } from '../../lib/audit';
import { encryptSecret } from '../../lib/crypto';
import { generateAuthorizationSecrets } from './core/provider-client';
import { NEW_CONNECTION_UPSTREAM, type ProviderRegistry } from './core/provider-registry';
import { createDevicesRepository } from './devices.repository';
import { deviceEntriesOf } from './device-connections.service';

/**
 * Demo mode: links some demo participants to simulator accounts, so the device status
 * column, the participant page and the token pages have something to show. The embedded
 * simulators forget their grants when the process stops, so this runs at every demo start
 * and re-links what it linked before — unless staff revoked it or it needs re-consent
 * (those states are the user's to change). Consent is given through the simulators' real
 * consent pages and code exchange, like a participant would: main.ts passes the links and
 * the consent driver from `@trialpulse/provider-simulators/embedded` (product code never
 * imports the simulators).
 */
export type DemoDeviceLink = {
  participantCode: string;
  brand: DeviceBrandName;
  account: string;
  variant?: 'expired';
};

export async function linkDemoDevices(deps: {
  database: Database;
  links: readonly DemoDeviceLink[];
  /** The participant connected before the legacy Fitbit API shut down (needs re-consent). */
  legacyParticipantCode: string;
  /** Answers the provider's consent page for `account`; returns the redirect to our callback. */
  consent: (authorizeUrl: URL, choice: { account: string }) => Promise<URL>;
  providers: ProviderRegistry;
  encryptionKey: string;
  now?: () => Date;
  log?: (message: string) => void;
}): Promise<{ linked: number }> {
  const { database, providers, encryptionKey } = deps;
  const db = database.db;
  const repository = createDevicesRepository(db);
  const now = deps.now ?? (() => new Date());
  let linked = 0;

  for (const link of deps.links) {
    const [participant] = await db
      .select({ id: participants.id, teamId: participants.teamId })
      .from(participants)
      .where(eq(participants.participantCode, link.participantCode));
    if (!participant) continue;
    const existing = await repository.findConnection(
      db,
      participant.teamId,
      participant.id,
      link.brand,
    );
    if (existing && (existing.authorizationStatus === 'revoked' || existing.needsReconsent))
      continue;
    const upstream = NEW_CONNECTION_UPSTREAM[link.brand];
    const client = providers.client(upstream);
    if (!client) continue;
    try {
      const { state, codeVerifier } = generateAuthorizationSecrets();
      const url = await client.authorizationUrl({
        state,
        ...(client.supportsPkce && { codeVerifier }),
      });
      const redirect = await deps.consent(url, { account: link.account });
      const code = redirect.searchParams.get('code');
      if (!code || redirect.searchParams.get('state') !== state) continue;
      const tokens = await client.exchangeCode(
        code,
        client.supportsPkce ? codeVerifier : undefined,
      );
      const at = now();
      const connectionId = await repository.transaction(async (tx) => {
        const catalogDeviceId = await repository.catalogDeviceFor(
          tx,
          participant.teamId,
          link.brand,
        );
        if (catalogDeviceId === undefined) return undefined;
        const connectionId = await repository.saveLinkedConnection(tx, {
          teamId: participant.teamId,
          participantId: participant.id,
          globalDeviceCatalogId: catalogDeviceId,
          upstream,
          providerUserId: tokens.providerUserId ?? null,
          accessTokenEncrypted: encryptSecret(tokens.accessToken, encryptionKey),
          refreshTokenEncrypted: encryptSecret(tokens.refreshToken, encryptionKey),
          tokenExpiresAt:
            link.variant === 'expired' ? new Date(at.getTime() - 3_600_000) : tokens.expiresAt,
          scopes: tokens.scopes,
          now: at,
        });
        await recordAudit(tx, {
          action: 'device.link',
          entityType: 'participant_device',
          entityId: connectionId,
          teamId: participant.teamId,
          after: {
            participantId: participant.id,
            brand: link.brand,
            upstream,
            origin: 'demo_seed',
          },
        });
        return connectionId;
      });
      if (connectionId === undefined) continue;
      linked += 1;
      // The device list as the status call stores it: battery and last upload for the grid.
      const devices = await client.listDevices(tokens.accessToken);
      await repository.saveDeviceStatus(
        { id: connectionId, teamId: participant.teamId },
        deviceEntriesOf(link.brand, devices),
        at,
      );
    } catch (error) {
      deps.log?.(
        `demo device link ${link.participantCode}/${link.brand} failed: ${(error as Error).message}`,
      );
    }
  }

  await seedLegacyConnection(database, repository, deps.legacyParticipantCode);
  return { linked };
}

/** A connection made through the retired legacy Fitbit Web API: its tokens died with it. */
async function seedLegacyConnection(
  database: Database,
  repository: ReturnType<typeof createDevicesRepository>,
  participantCode: string,
) {
  const db = database.db;
  const [participant] = await db
    .select({ id: participants.id, teamId: participants.teamId })
    .from(participants)
    .where(eq(participants.participantCode, participantCode));
  if (!participant) return;
  if (await repository.findConnection(db, participant.teamId, participant.id, 'Fitbit')) return;
  const catalogDeviceId = await repository.catalogDeviceFor(db, participant.teamId, 'Fitbit');
  if (catalogDeviceId === undefined) return;
  await db
    .insert(participantDevices)
    .values({
      teamId: participant.teamId,
      participantId: participant.id,
      globalDeviceCatalogId: catalogDeviceId,
      upstream: 'fitbit-legacy',
      authorizationStatus: 'error',
      authorizationDate: new Date('2026-03-02T09:00:00Z'),
      needsReconsent: true,
      lastSyncError: 'auth_error',
      notes: 'Linked through the legacy Fitbit Web API, shut down in November 2026.',
    })
    .onConflictDoNothing();
}
