import { accountDepsOf } from "../accounts/account-deps.ts";
import { createAccount } from "../accounts/create-account.ts";
import { createKey } from "../accounts/create-key.ts";
import type { AppContext } from "../context.ts";
import { randomBase62 } from "../domain/api-key.ts";
import { DomainError, type FieldIssue } from "../domain/domain-error.ts";
import { hashPassword } from "../domain/password.ts";
import type { UserRow } from "../store/schema.ts";
import { findUserByEmail, insertUser } from "../store/user-repository.ts";
import { recordAuditEvent } from "./audit-log.ts";
import {
  checkAccountName,
  checkEmail,
  checkNewPassword,
  EMAIL_TAKEN,
  normaliseEmail,
  throwIfAny,
} from "./credentials.ts";
import { claimInviteToken, findInvite, type InviteClaim } from "./invites.ts";
import { openSession } from "./sessions.ts";

export interface SignUpInput {
  readonly email: string;
  readonly password: string;
  /** Ignored when the invite names an account to join. */
  readonly accountName: string;
  readonly inviteToken?: string;
  readonly clientAddress: string;
}

export interface SignUpResult {
  readonly sessionToken: string;
  readonly accountId: string;
  readonly user: UserRow;
  /** The first test key of a new account, shown once; absent when joining an account. */
  readonly firstKey?: { readonly keyId: string; readonly secret: string };
}

export const FIRST_KEY_NAME = "Default test key";

/**
 * A new person: with no invite (when sign-up is open) or an operator's invite,
 * a new Free account with its allowance of credits and a first test key; with
 * an owner's invite, a member of that account.
 */
export async function signUp(app: AppContext, input: SignUpInput): Promise<SignUpResult> {
  const { db } = app.database;
  const email = normaliseEmail(input.email);
  const invited = input.inviteToken !== undefined && input.inviteToken !== "";
  const joining = invited ? await peekJoin(app, input.inviteToken!) : undefined;
  const issues: FieldIssue[] = [];
  const accountName = input.accountName.trim();
  checkEmail(issues, email);
  checkNewPassword(issues, input.password);
  if (joining === undefined) checkAccountName(issues, accountName);
  throwIfAny(issues);
  if (!invited && app.config.dashboard.signup === "invite") {
    throw new DomainError("failed_precondition", "Sign-up needs an invitation link");
  }
  if (await findUserByEmail(db, email)) throw EMAIL_TAKEN();
  // The slow hash first, so the invite is not spent on a request that fails here.
  const passwordHash = await hashPassword(input.password);
  const claim: InviteClaim | undefined = invited ? await claimInviteToken(app, input.inviteToken!) : undefined;

  const deps = accountDepsOf(app);
  const now = app.clock.now();
  const account = claim?.accountId ?? (await createAccount(deps, { name: accountName, tier: "free" })).accountId;
  const user = await insertUser(db, {
    id: `usr_${randomBase62(16)}`,
    account_id: account,
    email,
    password_hash: passwordHash,
    role: claim?.accountId ? "member" : "owner",
    created_at: now,
  }).catch((error) => {
    if (String(error?.code) === "23505") throw EMAIL_TAKEN();
    throw error;
  });
  const audit = { accountId: account, actor: email, clientAddress: input.clientAddress };
  await recordAuditEvent(db, now, { ...audit, event: claim?.accountId ? "member_joined" : "sign_up" });

  let firstKey: SignUpResult["firstKey"];
  if (!claim?.accountId) {
    const key = await createKey(deps, { accountId: account, kind: "test", name: FIRST_KEY_NAME });
    firstKey = { keyId: key.keyId, secret: key.apiKey };
    await recordAuditEvent(db, now, {
      ...audit,
      event: "key_created",
      detail: `${key.keyId} (${FIRST_KEY_NAME}, test)`,
    });
  }
  const sessionToken = await openSession(db, user.id, now, app.config.dashboard.sessionTtlMs);
  return { sessionToken, accountId: account, user, firstKey };
}

/** Whether an invite (still open) joins an existing account; refuses one that is used or expired. */
async function peekJoin(app: AppContext, token: string): Promise<string | undefined> {
  const invite = await findInvite(app, token);
  if (invite === undefined) throw new DomainError("not_found", "This invitation link is used or has expired");
  return invite.accountId ?? undefined;
}
