import { and, asc, eq, inArray, ne, notInArray, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import {
  globalDeviceCatalog,
  teamAllowedBrands,
  teamSupportedDevices,
  teams,
  users,
  type DeviceBrand,
} from '../../db/schema';

export type TeamRow = typeof teams.$inferSelect;
/** The only code of the team-admin module that touches tables. */
export function createTeamAdminRepository(db: Db) {
  /** Active allowed brands and supported devices of the given teams, by team id. */
  async function teamSets(dbOrTx: DbOrTx, teamIds: number[]) {
    const brands = new Map<number, DeviceBrand[]>();
    const devices = new Map<number, number[]>();
    if (teamIds.length === 0) return { brands, devices };
    const brandRows = await dbOrTx
      .select({ teamId: teamAllowedBrands.teamId, brand: teamAllowedBrands.brandName })
      .from(teamAllowedBrands)
      .where(and(inArray(teamAllowedBrands.teamId, teamIds), eq(teamAllowedBrands.isActive, true)))
      .orderBy(asc(teamAllowedBrands.brandName));
    for (const row of brandRows)
      brands.set(row.teamId, [...(brands.get(row.teamId) ?? []), row.brand]);
    const deviceRows = await dbOrTx
      .select({
        teamId: teamSupportedDevices.teamId,
        deviceId: teamSupportedDevices.globalDeviceCatalogId,
      })
      .from(teamSupportedDevices)
      .where(
        and(inArray(teamSupportedDevices.teamId, teamIds), eq(teamSupportedDevices.isActive, true)),
      )
      .orderBy(asc(teamSupportedDevices.globalDeviceCatalogId));
    for (const row of deviceRows)
      devices.set(row.teamId, [...(devices.get(row.teamId) ?? []), row.deviceId]);
    return { brands, devices };
  }

  const withSets = async (dbOrTx: DbOrTx, rows: TeamRow[]) => {
    const { brands, devices } = await teamSets(
      dbOrTx,
      rows.map((row) => row.id),
    );
    return rows.map((team) => ({
      team,
      allowedBrands: brands.get(team.id) ?? [],
      supportedDeviceIds: devices.get(team.id) ?? [],
    }));
  };

  return {
    transaction: db.transaction.bind(db),

    /** Every team with its active brands and devices, by name. */
    async listTeams() {
      const rows = await db
        .select()
        .from(teams)
        .orderBy(asc(sql`lower(${teams.teamName})`), asc(teams.id));
      return withSets(db, rows);
    },

    /** One team with its sets; `tx` + lock for the read that precedes a change. */
    async findTeam(teamId: number, options: { tx?: DbOrTx; lock?: boolean } = {}) {
      const from = options.tx ?? db;
      const query = from.select().from(teams).where(eq(teams.id, teamId));
      const rows = await (options.lock ? query.for('update') : query);
      return (await withSets(from, rows))[0];
    },

    async findTeamByName(name: string) {
      const rows = await db
        .select({ id: teams.id })
        .from(teams)
        .where(sql`lower(${teams.teamName}) = lower(${name})`);
      return rows[0];
    },

    async teamNameTaken(tx: DbOrTx, name: string, exceptTeamId?: number) {
      const rows = await tx
        .select({ id: teams.id })
        .from(teams)
        .where(
          and(
            sql`lower(${teams.teamName}) = lower(${name})`,
            exceptTeamId === undefined ? undefined : ne(teams.id, exceptTeamId),
          ),
        )
        .limit(1);
      return rows.length > 0;
    },

    /**
     * Makes exactly `brands` the team's active brands. Rows are switched off rather than
     * deleted, so nothing that refers to them is lost.
     */
    async setAllowedBrands(tx: DbOrTx, teamId: number, brands: readonly DeviceBrand[]) {
      await tx
        .update(teamAllowedBrands)
        .set({ isActive: false })
        .where(
          and(
            eq(teamAllowedBrands.teamId, teamId),
            brands.length ? notInArray(teamAllowedBrands.brandName, [...brands]) : undefined,
          ),
        );
      if (brands.length === 0) return;
      await tx
        .insert(teamAllowedBrands)
        .values(brands.map((brandName) => ({ teamId, brandName })))
        .onConflictDoUpdate({
          target: [teamAllowedBrands.teamId, teamAllowedBrands.brandName],
          set: { isActive: true },
        });
    },

    /**
     * Makes exactly `deviceIds` the team's active supported devices. Switched off, never
     * deleted: deleting would cascade to the device's metric settings.
     */
    async setSupportedDevices(tx: DbOrTx, teamId: number, deviceIds: readonly number[]) {
      await tx
        .update(teamSupportedDevices)
        .set({ isActive: false })
        .where(
          and(
            eq(teamSupportedDevices.teamId, teamId),
            deviceIds.length
              ? notInArray(teamSupportedDevices.globalDeviceCatalogId, [...deviceIds])
              : undefined,
          ),
        );
      if (deviceIds.length === 0) return;
      await tx
        .insert(teamSupportedDevices)
        .values(deviceIds.map((globalDeviceCatalogId) => ({ teamId, globalDeviceCatalogId })))
        .onConflictDoUpdate({
          target: [teamSupportedDevices.teamId, teamSupportedDevices.globalDeviceCatalogId],
          set: { isActive: true },
        });
    },

    /** The team's switched-on brands, in the brand enum's order (DEVICE_BRANDS). */
    async activeBrandsOf(teamId: number) {
      return db
        .select({ brand_name: teamAllowedBrands.brandName })
        .from(teamAllowedBrands)
        .where(and(eq(teamAllowedBrands.teamId, teamId), eq(teamAllowedBrands.isActive, true)))
        .orderBy(asc(teamAllowedBrands.brandName));
    },

    /** The team's switched-on catalog devices. */
    async activeSupportedDevicesOf(teamId: number) {
      return db
        .select({
          id: teamSupportedDevices.id,
          device_name: globalDeviceCatalog.deviceName,
          global_device_catalog_id: teamSupportedDevices.globalDeviceCatalogId,
          device_type: globalDeviceCatalog.deviceType,
        })
        .from(teamSupportedDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, teamSupportedDevices.globalDeviceCatalogId),
        )
        .where(
          and(eq(teamSupportedDevices.teamId, teamId), eq(teamSupportedDevices.isActive, true)),
        )
        .orderBy(asc(globalDeviceCatalog.deviceName), asc(teamSupportedDevices.id));
    },

    /** Which of the given ids exist in the global device catalog. */
    async existingCatalogIds(tx: DbOrTx, ids: readonly number[]) {
      if (ids.length === 0) return new Set<number>();
      const rows = await tx
        .select({ id: globalDeviceCatalog.id })
        .from(globalDeviceCatalog)
        .where(inArray(globalDeviceCatalog.id, [...ids]));
      return new Set(rows.map((row) => row.id));
    },

    async deviceCatalog() {
      return db
        .select({
          id: globalDeviceCatalog.id,
          manufacturer: globalDeviceCatalog.manufacturer,
          device_type: globalDeviceCatalog.deviceType,
          device_name: globalDeviceCatalog.deviceName,
        })
        .from(globalDeviceCatalog)
        .orderBy(asc(globalDeviceCatalog.manufacturer), asc(globalDeviceCatalog.deviceName));
    },

    // ---- First system administrator (command line) -----------------------------------

    async findUserByEmail(email: string) {
      const rows = await db
        .select({ id: users.id })
        .from(users)
        .where(sql`lower(${users.email}) = ${email} OR lower(${users.username}) = ${email}`)
        .limit(1);
      return rows[0];
    },
  };
}

export type TeamAdminRepository = ReturnType<typeof createTeamAdminRepository>;
