import type { ServiceImpl } from "@connectrpc/connect";
import type { AdminService } from "../../gen/callercontext/v1/admin_pb.ts";
import { createAccount } from "../accounts/create-account.ts";
import { createKey } from "../accounts/create-key.ts";
import { getAccount } from "../accounts/get-account.ts";
import { listKeys } from "../accounts/list-keys.ts";
import { revokeKey } from "../accounts/revoke-key.ts";
import { setAccountQuota } from "../accounts/set-account-quota.ts";
import { setAccountRepeatWindow } from "../accounts/set-account-repeat-window.ts";
import { setAccountRetention } from "../accounts/set-account-retention.ts";
import { setAccountTier } from "../accounts/set-account-tier.ts";
import { getAccountContactFigures } from "../analytics/get-account-contact-figures.ts";
import { writeBackup } from "../backups/write-backup.ts";
import type { AppContext } from "../context.ts";
import { createInvite } from "../dashboard-auth/invites.ts";
import type { Integration } from "../domain/integration.ts";
import { createIntegration } from "../integrations/create-integration.ts";
import { deleteIntegration } from "../integrations/delete-integration.ts";
import { listIntegrations } from "../integrations/list-integrations.ts";
import { withDomainErrors } from "../pipeline/public-error.ts";
import { accountDepsOf, dashboardAuthDepsOf } from "../use-case-deps.ts";
import { contactFiguresToResponse } from "./contact-figures-mapping.ts";
import { eventEndpointMethods } from "./event-endpoint-admin.ts";

/** Accounts and keys for the operator: proto ⇄ the account use cases. The admin token guards every method. */
export function createAdminService(app: AppContext): ServiceImpl<typeof AdminService> {
  const auth = dashboardAuthDepsOf(app);
  const deps = accountDepsOf(app);
  return {
    createAccount: withDomainErrors(async (req) => ({
      account: await createAccount(deps, { name: req.name, tier: req.tier, quota: req.quota }),
    })),
    getAccount: withDomainErrors(async (req) => ({ account: await getAccount(deps, req.accountId) })),
    setAccountQuota: withDomainErrors(async (req) => ({
      account: await setAccountQuota(deps, { accountId: req.accountId, quotaRemaining: req.quotaRemaining }),
    })),
    setAccountRetention: withDomainErrors(async (req) => ({
      account: await setAccountRetention(deps, {
        accountId: req.accountId,
        contextRetentionDays: req.contextRetentionDays,
      }),
    })),
    getAccountContactFigures: withDomainErrors(async (req) => ({
      figures: contactFiguresToResponse(await getAccountContactFigures(app.database, req, app.clock.now())),
    })),
    setAccountRepeatWindow: withDomainErrors(async (req) => ({
      account: await setAccountRepeatWindow(deps, { accountId: req.accountId, repeatWindowDays: req.repeatWindowDays }),
    })),
    setAccountTier: withDomainErrors(async (req) => ({
      account: await setAccountTier(deps, { accountId: req.accountId, tier: req.tier }),
    })),
    createKey: withDomainErrors(async (req) => createKey(deps, { accountId: req.accountId, kind: req.kind })),
    listKeys: withDomainErrors(async (req) => ({ keys: await listKeys(deps, req.accountId) })),
    revokeKey: withDomainErrors(async (req) => {
      const key = await revokeKey(deps, req.keyId);
      return { keyId: key.keyId, revoked: key.revoked };
    }),
    createIntegration: withDomainErrors(async (req) => {
      const mapping = req.endOfCall;
      const created = await createIntegration(deps, {
        accountId: req.accountId,
        platform: req.platform,
        name: req.name,
        kind: req.kind,
        signingSecret: req.signingSecret,
        assistantId: req.assistantId,
        intentField: mapping?.intentField,
        statusField: mapping?.statusField,
        variableFields: mapping?.variableFields ?? [],
        storeSummary: mapping?.storeSummary ?? false,
      });
      return { integration: integrationToProto(created.integration), webhookSecret: created.webhookSecret };
    }),
    listIntegrations: withDomainErrors(async (req) => ({
      integrations: (await listIntegrations(deps, req.accountId)).map(integrationToProto),
    })),
    deleteIntegration: withDomainErrors(async (req) => {
      await deleteIntegration(deps, req.integrationId);
      return { integrationId: req.integrationId, deleted: true };
    }),
    createSignupInvite: withDomainErrors(async () => {
      const invite = await createInvite(auth, { accountId: null, createdBy: "operator", clientAddress: "" });
      return { path: `/dashboard/invite/${invite.token}`, expiresAt: invite.expiresAt.toISOString() };
    }),
    backupDatabase: withDomainErrors(async () => {
      const backup = await writeBackup({
        snapshot: app.database.snapshot,
        clock: app.clock,
        backupDir: app.config.backupDir,
      });
      return { path: backup.path, bytes: backup.bytes, takenAt: backup.takenAt.toISOString() };
    }),
    ...eventEndpointMethods(app),
  };
}

/** The proto's lists are mutable; the domain's are not. */
function integrationToProto(integration: Integration) {
  return {
    ...integration,
    endOfCall: { ...integration.endOfCall, variableFields: [...integration.endOfCall.variableFields] },
  };
}
