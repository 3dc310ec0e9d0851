import type { DescMethod } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { AdminService } from "../../gen/callercontext/v1/admin_pb.ts";
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
import { decodeIssuesKey } from "../pipeline/context-values.ts";
import { accountDepsOf, dashboardAuthDepsOf } from "../use-case-deps.ts";
import { contactFiguresToResponse } from "./contact-figures-mapping.ts";
import { eventEndpointMethods } from "./event-endpoint-admin.ts";

/**
 * The admin methods whose use cases refuse what the host could not decode themselves, with what their own rules
 * find (a missing name, a tier outside the set, a quota out of range): one 400 names every offending field. The
 * others take nothing but the ids in their path (a 404 when they name nothing) or a flag with no rule.
 */
export const ADMIN_METHODS_VALIDATED_WITH_DECODE_ISSUES: readonly DescMethod[] = [
  AdminService.method.createAccount,
  AdminService.method.setAccountQuota,
  AdminService.method.setAccountTier,
  AdminService.method.setAccountRetention,
  AdminService.method.setAccountRepeatWindow,
  AdminService.method.getAccountContactFigures,
  AdminService.method.createKey,
  AdminService.method.createIntegration,
  AdminService.method.createEventEndpoint,
  AdminService.method.rollEventEndpointSecret,
];

/** Accounts and keys for the operator: proto ⇄ the account use cases. The admin token guards every method. */
export function createAdminService(app: AppContext): ServiceImpl<typeof AdminService> {
  const auth = dashboardAuthDepsOf(app);
  const deps = accountDepsOf(app);
  return {
    createAccount: async (req, context) => ({
      account: await createAccount(deps, {
        name: req.name,
        tier: req.tier,
        quota: req.quota,
        decodeIssues: context.values.get(decodeIssuesKey),
      }),
    }),
    getAccount: async (req) => ({ account: await getAccount(deps, req.accountId) }),
    setAccountQuota: async (req, context) => ({
      account: await setAccountQuota(deps, {
        accountId: req.accountId,
        quotaRemaining: req.quotaRemaining,
        decodeIssues: context.values.get(decodeIssuesKey),
      }),
    }),
    setAccountRetention: async (req, context) => ({
      account: await setAccountRetention(deps, {
        accountId: req.accountId,
        contextRetentionDays: req.contextRetentionDays,
        decodeIssues: context.values.get(decodeIssuesKey),
      }),
    }),
    getAccountContactFigures: async (req, context) => ({
      figures: contactFiguresToResponse(
        await getAccountContactFigures(
          app.database,
          {
            accountId: req.accountId,
            mode: req.mode,
            from: req.from,
            to: req.to,
            decodeIssues: context.values.get(decodeIssuesKey),
          },
          app.clock.now(),
        ),
      ),
    }),
    setAccountRepeatWindow: async (req, context) => ({
      account: await setAccountRepeatWindow(deps, {
        accountId: req.accountId,
        repeatWindowDays: req.repeatWindowDays,
        decodeIssues: context.values.get(decodeIssuesKey),
      }),
    }),
    setAccountTier: async (req, context) => ({
      account: await setAccountTier(deps, {
        accountId: req.accountId,
        tier: req.tier,
        decodeIssues: context.values.get(decodeIssuesKey),
      }),
    }),
    createKey: async (req, context) =>
      createKey(deps, { accountId: req.accountId, kind: req.kind, decodeIssues: context.values.get(decodeIssuesKey) }),
    listKeys: async (req) => ({ keys: await listKeys(deps, req.accountId) }),
    revokeKey: async (req) => {
      const key = await revokeKey(deps, req.keyId);
      return { keyId: key.keyId, revoked: key.revoked };
    },
    createIntegration: async (req, context) => {
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
        decodeIssues: context.values.get(decodeIssuesKey),
      });
      return { integration: integrationToProto(created.integration), webhookSecret: created.webhookSecret };
    },
    listIntegrations: async (req) => ({
      integrations: (await listIntegrations(deps, req.accountId)).map(integrationToProto),
    }),
    deleteIntegration: async (req) => {
      await deleteIntegration(deps, req.integrationId);
      return { integrationId: req.integrationId, deleted: true };
    },
    createSignupInvite: async () => {
      const invite = await createInvite(auth, { accountId: null, createdBy: "operator", clientAddress: "" });
      return { path: `/dashboard/invite/${invite.token}`, expiresAt: invite.expiresAt.toISOString() };
    },
    backupDatabase: async () => {
      const backup = await writeBackup({
        snapshot: app.database.snapshot,
        clock: app.clock,
        backupDir: app.config.backupDir,
      });
      return { path: backup.path, bytes: backup.bytes, takenAt: backup.takenAt.toISOString() };
    },
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
