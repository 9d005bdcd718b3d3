import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import { oneTimeCodes, rememberedDevices, sfaSecrets } from '../../db/schema';

/** Tables of the second factor: TOTP secrets, emailed codes, remembered devices. */
export function createSfaRepository(db: Db) {
  return {
    transaction: db.transaction.bind(db),

    async findSecret(userId: number) {
      const rows = await db.select().from(sfaSecrets).where(eq(sfaSecrets.userId, userId));
      return rows[0];
    },

    async savePendingSecret(userId: number, secretEncrypted: string) {
      await db
        .insert(sfaSecrets)
        .values({ userId, secretEncrypted, verifiedAt: null, lastUsedStep: null })
        .onConflictDoUpdate({
          target: sfaSecrets.userId,
          set: { secretEncrypted, verifiedAt: null, lastUsedStep: null },
        });
    },

    /** Records a used TOTP step; false if that step (or a later one) was already used. */
    async claimStep(tx: DbOrTx, userId: number, step: number) {
      const claimed = await tx
        .update(sfaSecrets)
        .set({ lastUsedStep: step })
        .where(
          and(
            eq(sfaSecrets.userId, userId),
            sql`(${sfaSecrets.lastUsedStep} IS NULL OR ${sfaSecrets.lastUsedStep} < ${step})`,
          ),
        )
        .returning({ userId: sfaSecrets.userId });
      return claimed.length === 1;
    },

    async markSecretVerified(tx: DbOrTx, userId: number, now: Date) {
      await tx.update(sfaSecrets).set({ verifiedAt: now }).where(eq(sfaSecrets.userId, userId));
    },

    /** Replaces any earlier unused code: only the newest emailed code counts. */
    async replaceEmailCode(
      tx: DbOrTx,
      userId: number,
      codeHash: string,
      now: Date,
      expiresAt: Date,
    ) {
      await tx
        .update(oneTimeCodes)
        .set({ usedAt: now })
        .where(
          and(
            eq(oneTimeCodes.userId, userId),
            eq(oneTimeCodes.purpose, 'sfa_email'),
            isNull(oneTimeCodes.usedAt),
          ),
        );
      await tx
        .insert(oneTimeCodes)
        .values({ userId, purpose: 'sfa_email', codeHash, createdAt: now, expiresAt });
    },

    async findLiveEmailCode(userId: number, now: Date, maxTries: number) {
      const rows = await db
        .select()
        .from(oneTimeCodes)
        .where(
          and(
            eq(oneTimeCodes.userId, userId),
            eq(oneTimeCodes.purpose, 'sfa_email'),
            isNull(oneTimeCodes.usedAt),
            gt(oneTimeCodes.expiresAt, now),
            sql`${oneTimeCodes.attempts} < ${maxTries}`,
          ),
        )
        .limit(1);
      return rows[0];
    },

    async countWrongEmailCode(codeId: number) {
      await db
        .update(oneTimeCodes)
        .set({ attempts: sql`${oneTimeCodes.attempts} + 1` })
        .where(eq(oneTimeCodes.id, codeId));
    },

    /** Spends a code once; false if it was spent concurrently. */
    async useEmailCode(tx: DbOrTx, codeId: number, now: Date) {
      const used = await tx
        .update(oneTimeCodes)
        .set({ usedAt: now })
        .where(and(eq(oneTimeCodes.id, codeId), isNull(oneTimeCodes.usedAt)))
        .returning({ id: oneTimeCodes.id });
      return used.length === 1;
    },

    async insertRememberedDevice(tx: DbOrTx, values: typeof rememberedDevices.$inferInsert) {
      await tx.insert(rememberedDevices).values(values);
    },

    async findRememberedDevice(tokenHash: string) {
      const rows = await db
        .select()
        .from(rememberedDevices)
        .where(eq(rememberedDevices.tokenHash, tokenHash));
      return rows[0];
    },

    async touchRememberedDevice(id: number, now: Date) {
      await db
        .update(rememberedDevices)
        .set({ lastUsedAt: now })
        .where(eq(rememberedDevices.id, id));
    },

    /** Removes the second factor's own rows: the secret and the remembered devices. */
    async resetSecondFactor(tx: DbOrTx, userId: number) {
      await tx.delete(sfaSecrets).where(eq(sfaSecrets.userId, userId));
      await tx.delete(rememberedDevices).where(eq(rememberedDevices.userId, userId));
    },
  };
}

export type SfaRepository = ReturnType<typeof createSfaRepository>;

/**
 * The maintenance purge's part (jobs/maintenance.ts), in its transaction: emailed codes and
 * remembered devices past their expiry. Returns how many of each went.
 */
export async function purgeExpiredSfaRows(tx: DbOrTx, now: Date) {
  const codes = await tx
    .delete(oneTimeCodes)
    .where(lt(oneTimeCodes.expiresAt, now))
    .returning({ id: oneTimeCodes.id });
  const devices = await tx
    .delete(rememberedDevices)
    .where(lt(rememberedDevices.expiresAt, now))
    .returning({ id: rememberedDevices.id });
  return { oneTimeCodes: codes.length, rememberedDevices: devices.length };
}
