import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import {
  deviceAuthorizationRequests,
  globalDeviceCatalog,
  oneTimeTokens,
  participantDevices,
  participantDeviceStatus,
  participants,
  teamAllowedBrands,
  teams,
  teamSupportedDevices,
  trials,
  users,
  type AuthorizationOrigin,
  type DeviceBrand,
  type DeviceUpstream,
} from '../../db/schema';
import type { AuthorisedDeviceEntry } from '@trialpulse/shared';

/** A participant as device linking needs it (the email is for consent mails only). */
export type LinkableParticipant = {
  id: number;
  teamId: number;
  trialId: number;
  participantCode: string;
  email: string | null;
  teamName: string;
  trialName: string;
  trialNumber: string;
};

/** A stored connection with its brand; tokens stay encrypted until a service needs one. */
export type ConnectionRow = typeof participantDevices.$inferSelect & { brand: DeviceBrand };

export type ConnectionWithParticipant = ConnectionRow & {
  participantCode: string;
  trialId: number;
  trialNumber: string;
};

/** The participant columns device linking reads, with the team's and trial's names. */
const linkableColumns = {
  id: participants.id,
  teamId: participants.teamId,
  trialId: participants.trialId,
  participantCode: participants.participantCode,
  email: participants.email,
  teamName: teams.teamName,
  trialName: trials.trialName,
  trialNumber: trials.trialNumber,
};

const connectionColumns = {
  connection: participantDevices,
  brand: globalDeviceCatalog.manufacturer,
};

const toConnection = (row: {
  connection: typeof participantDevices.$inferSelect;
  brand: DeviceBrand;
}) => ({
  ...row.connection,
  brand: row.brand,
});

/** The tables of device linking: connections, started authorisations and consent links. */
export function createDevicesRepository(db: Db) {
  return {
    db,
    transaction<T>(run: (tx: DbOrTx) => Promise<T>): Promise<T> {
      return db.transaction((tx) => run(tx));
    },

    /** A participant by id alone (public consent and callback flows; callers check the team). */
    async findParticipant(
      q: DbOrTx,
      participantId: number,
    ): Promise<LinkableParticipant | undefined> {
      const [row] = await q
        .select(linkableColumns)
        .from(participants)
        .innerJoin(teams, eq(teams.id, participants.teamId))
        .innerJoin(trials, eq(trials.id, participants.trialId))
        .where(eq(participants.id, participantId));
      return row;
    },

    /** The participant records that carry an email (participant portal). */
    async participantsWithEmail(email: string): Promise<LinkableParticipant[]> {
      return db
        .select(linkableColumns)
        .from(participants)
        .innerJoin(teams, eq(teams.id, participants.teamId))
        .innerJoin(trials, eq(trials.id, participants.trialId))
        .where(eq(participants.email, email))
        .orderBy(asc(participants.id));
    },

    /** A participant account's address and whether it was verified. */
    async accountEmail(userId: number): Promise<{ email: string; verified: boolean } | null> {
      const [row] = await db
        .select({ email: users.email, verifiedAt: users.emailVerifiedAt })
        .from(users)
        .where(and(eq(users.id, userId), eq(users.accountType, 'participant')));
      return row ? { email: row.email, verified: row.verifiedAt !== null } : null;
    },

    /** Whether the team is switched on (a switched-off team links nothing). */
    async teamIsActive(teamId: number): Promise<boolean> {
      const [row] = await db
        .select({ isActive: teams.isActive })
        .from(teams)
        .where(eq(teams.id, teamId));
      return row?.isActive ?? false;
    },

    async allowedBrands(teamId: number): Promise<DeviceBrand[]> {
      const rows = await db
        .select({ brand: teamAllowedBrands.brandName })
        .from(teamAllowedBrands)
        .where(and(eq(teamAllowedBrands.teamId, teamId), eq(teamAllowedBrands.isActive, true)))
        .orderBy(asc(teamAllowedBrands.brandName));
      return rows.map((row) => row.brand);
    },

    /**
     * The catalog device a brand's connection is filed under: the team's first supported
     * device of that brand, else the brand's first catalog device.
     */
    async catalogDeviceFor(
      q: DbOrTx,
      teamId: number,
      brand: DeviceBrand,
    ): Promise<number | undefined> {
      const [supported] = await q
        .select({ id: globalDeviceCatalog.id })
        .from(teamSupportedDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, teamSupportedDevices.globalDeviceCatalogId),
        )
        .where(
          and(
            eq(teamSupportedDevices.teamId, teamId),
            eq(teamSupportedDevices.isActive, true),
            eq(globalDeviceCatalog.manufacturer, brand),
          ),
        )
        .orderBy(asc(globalDeviceCatalog.id))
        .limit(1);
      if (supported) return supported.id;
      const [any] = await q
        .select({ id: globalDeviceCatalog.id })
        .from(globalDeviceCatalog)
        .where(eq(globalDeviceCatalog.manufacturer, brand))
        .orderBy(asc(globalDeviceCatalog.id))
        .limit(1);
      return any?.id;
    },

    /** The participant's connection for a brand (the most recent when several exist); `lock` for a change. */
    async findConnection(
      q: DbOrTx,
      teamId: number,
      participantId: number,
      brand: DeviceBrand,
      lock = false,
    ): Promise<ConnectionRow | undefined> {
      const query = q
        .select(connectionColumns)
        .from(participantDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, participantDevices.globalDeviceCatalogId),
        )
        .where(
          and(
            eq(participantDevices.teamId, teamId),
            eq(participantDevices.participantId, participantId),
            eq(globalDeviceCatalog.manufacturer, brand),
          ),
        )
        .orderBy(sql`${participantDevices.updatedAt} DESC`)
        .limit(1);
      const [row] = lock ? await query.for('update', { of: participantDevices }) : await query;
      return row && toConnection(row);
    },

    /**
     * The connections of several participants with each one's stored device list, in one
     * query (the status cycle's page). Callers keep the most recent per brand.
     */
    async connectionsWithStatus(teamId: number, participantIds: readonly number[]) {
      if (participantIds.length === 0) return [];
      const rows = await db
        .select({
          ...connectionColumns,
          statusDevices: participantDeviceStatus.devices,
          statusCheckedAt: participantDeviceStatus.checkedAt,
        })
        .from(participantDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, participantDevices.globalDeviceCatalogId),
        )
        .leftJoin(
          participantDeviceStatus,
          eq(participantDeviceStatus.participantDeviceId, participantDevices.id),
        )
        .where(
          and(
            eq(participantDevices.teamId, teamId),
            inArray(participantDevices.participantId, [...participantIds]),
          ),
        );
      return rows.map((row) => ({
        connection: toConnection(row),
        stored:
          row.statusCheckedAt === null
            ? null
            : {
                devices: row.statusDevices as AuthorisedDeviceEntry[],
                checkedAt: row.statusCheckedAt,
              },
      }));
    },

    /** Stores a connection's device list as just read from the provider. */
    async saveDeviceStatus(
      connection: { id: number; teamId: number },
      devices: AuthorisedDeviceEntry[],
      checkedAt: Date,
    ) {
      await db
        .insert(participantDeviceStatus)
        .values({
          participantDeviceId: connection.id,
          teamId: connection.teamId,
          devices,
          checkedAt,
        })
        .onConflictDoUpdate({
          target: participantDeviceStatus.participantDeviceId,
          set: { devices, checkedAt },
        });
    },

    /** One connection by id, locked for the caller's transaction (refresh and revoke). */
    /** A connection by id, not locked (device-data sync reads it before each provider call). */
    async connectionById(connectionId: number): Promise<ConnectionRow | undefined> {
      const [row] = await db
        .select(connectionColumns)
        .from(participantDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, participantDevices.globalDeviceCatalogId),
        )
        .where(eq(participantDevices.id, connectionId));
      return row && toConnection(row);
    },

    /** The connection's last sync and its error (the sync's end of run, in its transaction). */
    async recordSync(
      tx: DbOrTx,
      connectionId: number,
      values: { lastSyncAt: Date; lastSyncError: string | null },
    ): Promise<void> {
      await tx
        .update(participantDevices)
        .set(values)
        .where(eq(participantDevices.id, connectionId));
    },

    async lockConnection(tx: DbOrTx, connectionId: number): Promise<ConnectionRow | undefined> {
      const [row] = await tx
        .select(connectionColumns)
        .from(participantDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, participantDevices.globalDeviceCatalogId),
        )
        .where(eq(participantDevices.id, connectionId))
        .for('update', { of: participantDevices });
      return row && toConnection(row);
    },

    async connectionsOfParticipant(
      teamId: number,
      participantId: number,
    ): Promise<ConnectionRow[]> {
      const rows = await db
        .select(connectionColumns)
        .from(participantDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, participantDevices.globalDeviceCatalogId),
        )
        .where(
          and(
            eq(participantDevices.teamId, teamId),
            eq(participantDevices.participantId, participantId),
          ),
        )
        .orderBy(asc(participantDevices.id));
      return rows.map(toConnection);
    },

    /** Every connection of a brand in the team, with the participant's code and trial. */
    async connectionsOfTeam(
      teamId: number,
      brand: DeviceBrand,
    ): Promise<ConnectionWithParticipant[]> {
      const rows = await db
        .select({
          ...connectionColumns,
          participantCode: participants.participantCode,
          trialId: participants.trialId,
          trialNumber: trials.trialNumber,
        })
        .from(participantDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, participantDevices.globalDeviceCatalogId),
        )
        .innerJoin(
          participants,
          and(
            eq(participants.id, participantDevices.participantId),
            eq(participants.teamId, participantDevices.teamId),
          ),
        )
        .innerJoin(trials, eq(trials.id, participants.trialId))
        .where(
          and(eq(participantDevices.teamId, teamId), eq(globalDeviceCatalog.manufacturer, brand)),
        )
        .orderBy(asc(participants.participantCode));
      return rows.map((row) => ({
        ...toConnection(row),
        participantCode: row.participantCode,
        trialId: row.trialId,
        trialNumber: row.trialNumber,
      }));
    },

    /**
     * Every connection of these participants of the team with its stored device list, if
     * any (sync health of the completeness grid).
     */
    async connectionsOfParticipants(teamId: number, participantIds: readonly number[]) {
      if (participantIds.length === 0) return [];
      const rows = await db
        .select({ ...connectionColumns, statusDevices: participantDeviceStatus.devices })
        .from(participantDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, participantDevices.globalDeviceCatalogId),
        )
        .leftJoin(
          participantDeviceStatus,
          eq(participantDeviceStatus.participantDeviceId, participantDevices.id),
        )
        .where(
          and(
            eq(participantDevices.teamId, teamId),
            inArray(participantDevices.participantId, [...participantIds]),
          ),
        );
      return rows.map((row) => ({
        connection: toConnection(row),
        statusDevices: row.statusDevices as AuthorisedDeviceEntry[] | null,
      }));
    },

    /** Stores a fresh grant: one row per (participant, catalog device), replaced on re-consent. */
    async saveLinkedConnection(
      tx: DbOrTx,
      values: {
        teamId: number;
        participantId: number;
        globalDeviceCatalogId: number;
        upstream: DeviceUpstream;
        providerUserId: string | null;
        accessTokenEncrypted: string;
        refreshTokenEncrypted: string;
        tokenExpiresAt: Date;
        scopes: string[];
        now: Date;
      },
    ): Promise<number> {
      const linked = {
        upstream: values.upstream,
        providerUserId: values.providerUserId,
        accessTokenEncrypted: values.accessTokenEncrypted,
        refreshTokenEncrypted: values.refreshTokenEncrypted,
        tokenExpiresAt: values.tokenExpiresAt,
        scopes: values.scopes,
        authorizationStatus: 'authorized' as const,
        authorizationDate: values.now,
        needsReconsent: false,
        lastRefreshedAt: values.now,
        lastSyncError: null,
        updatedAt: values.now,
      };
      const [row] = await tx
        .insert(participantDevices)
        .values({
          teamId: values.teamId,
          participantId: values.participantId,
          globalDeviceCatalogId: values.globalDeviceCatalogId,
          ...linked,
        })
        .onConflictDoUpdate({
          target: [participantDevices.participantId, participantDevices.globalDeviceCatalogId],
          set: linked,
        })
        .returning({ id: participantDevices.id });
      return row!.id;
    },

    async updateConnection(
      tx: DbOrTx,
      connectionId: number,
      values: Partial<typeof participantDevices.$inferInsert>,
    ): Promise<void> {
      await tx
        .update(participantDevices)
        .set(values)
        .where(eq(participantDevices.id, connectionId));
    },

    async insertConsentToken(
      tx: DbOrTx,
      values: {
        tokenHash: string;
        teamId: number;
        participantId: number;
        brand: DeviceBrand;
        createdByUserId: number;
        expiresAt: Date;
      },
    ): Promise<number> {
      const [row] = await tx
        .insert(oneTimeTokens)
        .values({
          purpose: 'participant_consent',
          tokenHash: values.tokenHash,
          teamId: values.teamId,
          participantId: values.participantId,
          deviceBrand: values.brand,
          createdByUserId: values.createdByUserId,
          expiresAt: values.expiresAt,
        })
        .returning({ id: oneTimeTokens.id });
      return row!.id;
    },

    /** An unused, unexpired consent link token by its hash. */
    async findUsableConsentToken(tokenHash: string, now: Date) {
      const [row] = await db
        .select()
        .from(oneTimeTokens)
        .where(
          and(
            eq(oneTimeTokens.tokenHash, tokenHash),
            eq(oneTimeTokens.purpose, 'participant_consent'),
            isNull(oneTimeTokens.usedAt),
            gt(oneTimeTokens.expiresAt, now),
          ),
        );
      return row;
    },

    async markConsentTokenUsed(tx: DbOrTx, tokenId: number, now: Date): Promise<void> {
      await tx.update(oneTimeTokens).set({ usedAt: now }).where(eq(oneTimeTokens.id, tokenId));
    },

    async insertAuthorizationRequest(
      tx: DbOrTx,
      values: {
        stateHash: string;
        teamId: number;
        participantId: number;
        brand: DeviceBrand;
        upstream: DeviceUpstream;
        codeVerifierEncrypted: string | null;
        origin: AuthorizationOrigin;
        initiatedByUserId: number | null;
        consentTokenId: number | null;
        expiresAt: Date;
      },
    ): Promise<void> {
      await tx.insert(deviceAuthorizationRequests).values(values);
    },

    /** A started authorisation that is still waiting for its callback. */
    async findPendingAuthorization(stateHash: string, now: Date) {
      const [row] = await db
        .select()
        .from(deviceAuthorizationRequests)
        .where(
          and(
            eq(deviceAuthorizationRequests.stateHash, stateHash),
            isNull(deviceAuthorizationRequests.usedAt),
            gt(deviceAuthorizationRequests.expiresAt, now),
          ),
        );
      return row;
    },

    /**
     * Marks a started authorisation used, atomically: of two callbacks with the same state
     * only one gets the row back.
     */
    async claimAuthorization(tx: DbOrTx, stateHash: string, now: Date) {
      const [row] = await tx
        .update(deviceAuthorizationRequests)
        .set({ usedAt: now })
        .where(
          and(
            eq(deviceAuthorizationRequests.stateHash, stateHash),
            isNull(deviceAuthorizationRequests.usedAt),
            gt(deviceAuthorizationRequests.expiresAt, now),
          ),
        )
        .returning();
      return row;
    },
  };
}

export type DevicesRepository = ReturnType<typeof createDevicesRepository>;
