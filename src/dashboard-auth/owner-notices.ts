import type { Mail, Mailer } from "../mail/mailer.ts";
import type { Db } from "../store/database.ts";
import { listOwnersOfAccount } from "../store/user-repository.ts";

/** Tells every verified owner of the account of a security event (a new key, a new member). */
export async function notifyOwners(
  db: Db,
  mailer: Mailer,
  accountId: string,
  mailTo: (owner: string) => Mail,
): Promise<void> {
  for (const owner of await listOwnersOfAccount(db, accountId)) mailer.send(mailTo(owner.email));
}
