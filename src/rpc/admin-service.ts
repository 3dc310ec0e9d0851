import type { ServiceImpl } from "@connectrpc/connect";
import type { AdminService } from "../../gen/callercontext/v1/admin_pb.ts";
import type { AppContext } from "../context.ts";
import { DomainError, type FieldIssue, validationError } from "../domain/domain-error.ts";
import { checkText } from "../domain/field-checks.ts";
import { MAX_ACCOUNT_NAME_LENGTH } from "../domain/limits.ts";
import type { Mode } from "../domain/tenant.ts";
import { isTier, type Tier } from "../domain/tiers.ts";
import { findAccount, quotaPeriodOf, updateAccount } from "../store/account-repository.ts";
import { createAccount, createApiKey } from "../store/admin-operations.ts";
import { listApiKeys, revokeApiKey } from "../store/api-key-repository.ts";
import type { AccountRow } from "../store/schema.ts";
import { withDomainErrors } from "./connect-errors.ts";

/** Accounts and keys for the operator; the admin token guards every method. */
export function createAdminService(app: AppContext): ServiceImpl<typeof AdminService> {
  const { db } = app.database;
  const now = () => app.clock.now();
  return {
    createAccount: withDomainErrors(async (req) => {
      const name = req.name.trim();
      if (name === "") throw invalid(["name"], "Required");
      const issues: FieldIssue[] = [];
      checkText(issues, ["name"], name, MAX_ACCOUNT_NAME_LENGTH);
      if (issues.length > 0) throw validationError(issues);
      const tier = parseTier(req.tier ?? "free");
      const quota = req.quota ?? app.config.monthlyQuota[tier];
      return { account: toAccount(await createAccount(db, { name, tier, quota }, now())) };
    }),
    getAccount: withDomainErrors(async (req) => ({ account: toAccount(await mustFindAccount(req.accountId)) })),
    setAccountQuota: withDomainErrors(async (req) => {
      await mustFindAccount(req.accountId);
      const row = await updateAccount(db, req.accountId, {
        quota_remaining: req.quotaRemaining,
        quota_period: quotaPeriodOf(now()),
      });
      return { account: toAccount(row ?? (await mustFindAccount(req.accountId))) };
    }),
    setAccountTier: withDomainErrors(async (req) => {
      const tier = parseTier(req.tier);
      await mustFindAccount(req.accountId);
      const row = await updateAccount(db, req.accountId, { tier });
      // The tier travels with cached keys; drop them so the new limits apply at once here.
      app.keys.forgetAll();
      return { account: toAccount(row ?? (await mustFindAccount(req.accountId))) };
    }),
    createKey: withDomainErrors(async (req) => {
      const kind = req.kind ?? "test";
      if (kind !== "test" && kind !== "prod") throw invalid(["kind"], "Expected one of: test, prod");
      await mustFindAccount(req.accountId);
      const key = await createApiKey(db, req.accountId, kind as Mode, now());
      return { keyId: key.keyId, apiKey: key.secret, kind: key.mode, accountId: key.accountId };
    }),
    listKeys: withDomainErrors(async (req) => {
      await mustFindAccount(req.accountId);
      const rows = await listApiKeys(db, req.accountId);
      return {
        keys: rows.map((row) => ({
          keyId: row.id,
          accountId: row.account_id,
          kind: row.kind,
          prefix: row.prefix,
          revoked: row.revoked_at !== null,
        })),
      };
    }),
    revokeKey: withDomainErrors(async (req) => {
      const row = await revokeApiKey(db, req.keyId, now());
      if (row === undefined) throw new DomainError("not_found", `Key '${req.keyId}' not found`);
      app.keys.forgetAll();
      return { keyId: row.id, revoked: true };
    }),
  };

  async function mustFindAccount(id: string): Promise<AccountRow> {
    const row = id === "" ? undefined : await findAccount(db, id);
    if (row === undefined) throw new DomainError("not_found", `Account '${id}' not found`);
    return row;
  }
}

function parseTier(value: string): Tier {
  if (!isTier(value)) throw invalid(["tier"], "Expected one of: free, starter, growth, scale");
  return value;
}

function invalid(path: string[], message: string): DomainError {
  return new DomainError("invalid_argument", "Validation failed", [{ path, message }]);
}

function toAccount(row: AccountRow) {
  return {
    accountId: row.id,
    billingAccountId: row.billing_account_id,
    name: row.name,
    tier: row.tier,
    quotaRemaining: row.quota_remaining,
  };
}
