import { TIERS } from "../domain/tiers.ts";
import type { Account } from "./admin-client.ts";
import { parseChoice, parseCount, requireOption } from "./arguments.ts";
import type { Command, CommandResult } from "./command.ts";
import { formatAccount } from "./output.ts";

const accountResult = (account: Account): CommandResult => ({
  // Exactly the contract's fields, whatever else a newer server might add.
  json: {
    account_id: account.account_id,
    billing_account_id: account.billing_account_id,
    name: account.name,
    tier: account.tier,
    quota_remaining: account.quota_remaining,
  },
  text: formatAccount(account),
});

export const accountCommands: readonly Command[] = [
  {
    name: "accounts create",
    args: [],
    options: { name: { type: "string" }, tier: { type: "string" }, quota: { type: "string" } },
    synopsis: `--name NAME [--tier ${TIERS.join("|")}] [--quota N]`,
    summary: "create an account (tier defaults to free, quota to the tier's monthly allowance)",
    async run({ options, admin }) {
      const name = requireOption(options, "name");
      const tier = options.tier === undefined ? undefined : parseChoice(options.tier, "--tier", TIERS);
      const quota = options.quota === undefined ? undefined : parseCount(options.quota, "--quota");
      return accountResult(await admin().createAccount({ name, tier, quota }));
    },
  },
  {
    name: "accounts invite",
    args: [],
    options: {},
    summary: "create a one-time dashboard sign-up link (for SIGNUP=invite)",
    async run({ admin, env }) {
      const invite = await admin().createSignupInvite();
      const url = new URL(invite.path, env.CALLER_CONTEXT_URL || "http://127.0.0.1:8080").toString();
      return {
        json: { url, expires_at: invite.expires_at },
        text: `Sign-up link (works once, until ${invite.expires_at}):\n${url}`,
      };
    },
  },
  {
    name: "accounts show",
    args: ["ACCOUNT_ID"],
    options: {},
    summary: "show an account",
    run: async ({ args, admin }) => accountResult(await admin().getAccount(args[0]!)),
  },
  {
    name: "accounts set-quota",
    args: ["ACCOUNT_ID", "N"],
    options: {},
    summary: "set the credits remaining this month",
    async run({ args, admin }) {
      const quota = parseCount(args[1]!, "N");
      return accountResult(await admin().setQuota(args[0]!, quota));
    },
  },
  {
    name: "accounts set-tier",
    args: ["ACCOUNT_ID", "TIER"],
    options: {},
    summary: `change the tier (${TIERS.join(", ")})`,
    async run({ args, admin }) {
      const tier = parseChoice(args[1]!, "TIER", TIERS);
      return accountResult(await admin().setTier(args[0]!, tier));
    },
  },
];
