import type { Account } from "../../gen/callercontext/v1/admin_pb.ts";
import { MAX_REPEAT_WINDOW_DAYS, MIN_REPEAT_WINDOW_DAYS } from "../domain/repeat-window.ts";
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from "../domain/retention.ts";
import { TIERS } from "../domain/tiers.ts";
import { parseChoice, parseQuota, parseRepeatWindow, parseRetention, requireOption } from "./arguments.ts";
import type { Command, CommandResult } from "./command.ts";
import { formatAccount } from "./output.ts";

const accountResult = (account: Account | undefined): CommandResult => {
  if (account === undefined) throw new Error("the server answered without an account");
  return {
    // The REST contract's names for the fields of the proto's Account.
    json: {
      account_id: account.accountId,
      billing_account_id: account.billingAccountId,
      name: account.name,
      tier: account.tier,
      quota_remaining: account.quotaRemaining,
      context_retention_days: account.contextRetentionDays,
      repeat_window_days: account.repeatWindowDays,
    },
    text: formatAccount(account),
  };
};

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
      const quota = options.quota === undefined ? undefined : parseQuota(options.quota, "--quota");
      return accountResult((await admin().createAccount({ name, tier, quota })).account);
    },
  },
  {
    name: "accounts invite",
    args: [],
    options: {},
    summary: "create a one-time dashboard sign-up link (for SIGNUP=invite)",
    async run({ admin, env }) {
      const invite = await admin().createSignupInvite({});
      // The public origin: the admin listener the CLI talks to serves no dashboard.
      const origin = env.CALLER_CONTEXT_PUBLIC_URL || env.CALLER_CONTEXT_URL || "http://127.0.0.1:8080";
      const url = new URL(invite.path, origin).toString();
      return {
        json: { url, expires_at: invite.expiresAt },
        text: `Sign-up link (works once, until ${invite.expiresAt}):\n${url}`,
      };
    },
  },
  {
    name: "accounts show",
    args: ["ACCOUNT_ID"],
    options: {},
    summary: "show an account",
    run: async ({ args, admin }) => accountResult((await admin().getAccount({ accountId: args[0]! })).account),
  },
  {
    name: "accounts set-quota",
    args: ["ACCOUNT_ID", "N"],
    options: {},
    summary: "set the credits remaining this month",
    async run({ args, admin }) {
      const quota = parseQuota(args[1]!, "N");
      return accountResult((await admin().setAccountQuota({ accountId: args[0]!, quotaRemaining: quota })).account);
    },
  },
  {
    name: "accounts set-retention",
    args: ["ACCOUNT_ID", "DAYS"],
    options: {},
    summary: `set how many days callers are remembered after their last call (${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS})`,
    async run({ args, admin }) {
      const days = parseRetention(args[1]!, "DAYS");
      return accountResult(
        (await admin().setAccountRetention({ accountId: args[0]!, contextRetentionDays: days })).account,
      );
    },
  },
  {
    name: "accounts set-repeat-window",
    args: ["ACCOUNT_ID", "DAYS"],
    options: {},
    summary: `set the days within which a caller's next call is a repeat contact (${MIN_REPEAT_WINDOW_DAYS} to ${MAX_REPEAT_WINDOW_DAYS})`,
    async run({ args, admin }) {
      const days = parseRepeatWindow(args[1]!, "DAYS");
      return accountResult(
        (await admin().setAccountRepeatWindow({ accountId: args[0]!, repeatWindowDays: days })).account,
      );
    },
  },
  {
    name: "accounts set-tier",
    args: ["ACCOUNT_ID", "TIER"],
    options: {},
    summary: `change the tier (${TIERS.join(", ")})`,
    async run({ args, admin }) {
      const tier = parseChoice(args[1]!, "TIER", TIERS);
      return accountResult((await admin().setAccountTier({ accountId: args[0]!, tier })).account);
    },
  },
];
