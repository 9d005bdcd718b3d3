import { contactMessages } from '../../db/schema';
import type { DbOrTx } from '../../db/client';

export type NewContactMessage = {
  firstName: string;
  lastName: string;
  email: string;
  subject: string;
  message: string;
};

/** Stores one contact-form message; returns its id. */
export async function insertContactMessage(
  tx: DbOrTx,
  message: NewContactMessage,
): Promise<number> {
  const [row] = await tx
    .insert(contactMessages)
    .values(message)
    .returning({ id: contactMessages.id });
  if (!row) throw new Error('contact message insert returned no row');
  return row.id;
}
