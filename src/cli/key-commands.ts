import { MODES } from "../domain/tenant.ts";
import { parseChoice, requireOption } from "./arguments.ts";
import type { Command } from "./command.ts";
import { formatCreatedKey, formatKeyList } from "./output.ts";

export const keyCommands: readonly Command[] = [
  {
    name: "keys create",
    args: [],
    options: { account: { type: "string" }, kind: { type: "string" } },
    synopsis: `--account ACCOUNT_ID [--kind ${MODES.join("|")}]`,
    summary: "create an API key (kind defaults to test); the secret is shown once",
    async run({ options, admin }) {
      const accountId = requireOption(options, "account");
      const kind = options.kind === undefined ? undefined : parseChoice(options.kind, "--kind", MODES);
      const key = await admin().createKey({ accountId, kind });
      return {
        json: { key_id: key.keyId, api_key: key.apiKey, kind: key.kind, account_id: key.accountId },
        text: formatCreatedKey(key),
      };
    },
  },
  {
    name: "keys list",
    args: [],
    options: { account: { type: "string" } },
    synopsis: "--account ACCOUNT_ID",
    summary: "list an account's keys (prefixes only, never secrets)",
    async run({ options, admin }) {
      const accountId = requireOption(options, "account");
      const { keys } = await admin().listKeys({ accountId });
      const json = keys.map((key) => ({
        key_id: key.keyId,
        account_id: key.accountId,
        kind: key.kind,
        prefix: key.prefix,
        revoked: key.revoked,
      }));
      return { json: { keys: json }, text: formatKeyList(accountId, keys) };
    },
  },
  {
    name: "keys revoke",
    args: ["KEY_ID"],
    options: {},
    summary: "revoke a key; requests with it get 401 from then on",
    async run({ args, admin }) {
      const revoked = await admin().revokeKey({ keyId: args[0]! });
      return { json: { key_id: revoked.keyId, revoked: revoked.revoked }, text: `Revoked ${revoked.keyId}.` };
    },
  },
];
