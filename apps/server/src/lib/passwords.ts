import { hash, verify } from '@node-rs/argon2';

/** Password hashing (argon2id, the library's OWASP-grade defaults); injectable for tests. */
export type PasswordHasher = {
  hash(password: string): Promise<string>;
  verify(passwordHash: string, password: string): Promise<boolean>;
};

export const argon2Hasher: PasswordHasher = {
  hash: (password) => hash(password),
  verify: async (passwordHash, password) => {
    try {
      return await verify(passwordHash, password);
    } catch {
      return false; // a malformed stored hash never signs anyone in
    }
  },
};

/**
 * A real argon2id hash of a random password: checked when the username is unknown so an
 * unknown account costs the same time as a wrong password.
 */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(hasher: PasswordHasher): Promise<string> {
  dummyHash ??= hasher.hash(`unknown-account-${Math.random()}`);
  return dummyHash;
}
