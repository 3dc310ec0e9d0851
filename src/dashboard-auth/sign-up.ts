import { createAccount } from "../accounts/create-account.ts";
import { randomBase62 } from "../domain/api-key.ts";
import { DomainError, type FieldIssue } from "../domain/domain-error.ts";
import { hashPassword } from "../domain/password.ts";
import type { Mailer } from "../mail/mailer.ts";
import { claimInvite } from "../store/invite-repository.ts";
import { findUserByEmail, insertUser } from "../store/user-repository.ts";
import { recordAuditEvent } from "./audit-log.ts";
import { checkAccountName, checkEmail, checkNewPassword, normaliseEmail, throwIfAny } from "./credentials.ts";
import type { DashboardAuthDeps } from "./dashboard-auth-deps.ts";
import { findInvite, inviteHash } from "./invites.ts";
import { memberAddedMail, signUpTakenMail, verifyEmailMail } from "./mail-texts.ts";
import { notifyOwners } from "./owner-notices.ts";
import { issueUserToken } from "./user-tokens.ts";

export interface SignUpInput {
  readonly email: string;
  readonly password: string;
  /** Ignored when the invite names an account to join. */
  readonly accountName: string;
  readonly inviteToken?: string;
  readonly clientAddress: string;
  /** Where the mailed links point (scheme and host). */
  readonly origin: string;
}

/**
 * A new person: with no invite (when sign-up is open) or an operator's invite,
 * a new Free account; with an owner's invite, a member of that account. Either
 * way unverified, with a link mailed to the address.
 *
 * A taken address gets the same answer after the same work (the slow hash
 * included), and its owner a mail saying so: the form tells nobody which
 * addresses have accounts. Account, person, invitation and link are written in
 * one transaction, so a sign-up that loses a race leaves nothing behind.
 */
export async function signUp(deps: DashboardAuthDeps, mailer: Mailer, input: SignUpInput): Promise<void> {
  const { db } = deps;
  const email = normaliseEmail(input.email);
  const invited = input.inviteToken !== undefined && input.inviteToken !== "";
  const joining = invited ? await peekJoin(deps, input.inviteToken!) : undefined;
  const issues: FieldIssue[] = [];
  const accountName = input.accountName.trim();
  checkEmail(issues, email);
  checkNewPassword(issues, input.password, "password", [email, accountName]);
  if (joining === undefined) checkAccountName(issues, accountName);
  throwIfAny(issues);
  if (!invited && deps.dashboard.signup === "invite") {
    throw new DomainError("failed_precondition", "Sign-up needs an invitation link");
  }
  // Before anything that depends on the address, so a taken one costs the same.
  const passwordHash = await hashPassword(input.password);
  const existing = await findUserByEmail(db, email);
  const created =
    existing === undefined ? await createPerson(deps, { ...input, email, accountName, passwordHash }) : undefined;
  if (created === undefined) {
    mailer.send(
      signUpTakenMail(email, `${input.origin}/dashboard/sign-in`, `${input.origin}/dashboard/forgot-password`),
    );
    return;
  }
  mailer.send(verifyEmailMail(email, `${input.origin}/dashboard/verify/${created.token}`, created.joined));
  if (created.joined) await notifyOwners(db, mailer, created.accountId, (to) => memberAddedMail(to, { member: email }));
}

type Person = { email: string; accountName: string; passwordHash: string; inviteToken?: string; clientAddress: string };

/** The account (unless joining), the person and their link, all or nothing; undefined when the address is taken. */
async function createPerson(deps: DashboardAuthDeps, person: Person) {
  const now = deps.clock.now();
  const invited = person.inviteToken !== undefined && person.inviteToken !== "";
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const claim = invited ? await claimInvite(trx, inviteHash(person.inviteToken!), now) : undefined;
      if (invited && claim === undefined) {
        throw new DomainError("not_found", "This invitation link is used or has expired");
      }
      const joined = claim?.account_id != null;
      const accountId =
        claim?.account_id ??
        (await createAccount({ ...deps, db: trx }, { name: person.accountName, tier: "free" })).accountId;
      const user = await insertUser(trx, {
        id: `usr_${randomBase62(16)}`,
        account_id: accountId,
        email: person.email,
        password_hash: person.passwordHash,
        role: joined ? "member" : "owner",
        created_at: now,
        email_verified_at: null,
      });
      await recordAuditEvent(trx, now, {
        accountId,
        actor: person.email,
        event: joined ? "member_joined" : "sign_up",
        clientAddress: person.clientAddress,
      });
      const token = await issueUserToken(trx, {
        userId: user.id,
        purpose: "verify_email",
        now,
        ttlMs: deps.dashboard.verifyTtlMs,
      });
      return { accountId, joined, token };
    });
  } catch (error) {
    // Another sign-up with the address committed first: this one wrote nothing.
    if (String((error as { code?: unknown })?.code) === "23505") return undefined;
    throw error;
  }
}

/** Whether an invite (still open) joins an existing account; refuses one that is used or expired. */
async function peekJoin(deps: DashboardAuthDeps, token: string): Promise<string | undefined> {
  const invite = await findInvite(deps, token);
  if (invite === undefined) throw new DomainError("not_found", "This invitation link is used or has expired");
  return invite.accountId ?? undefined;
}
