import { type DescMessage, type MessageShape, toJson } from "@bufbuild/protobuf";
import type { Account, ApiKey, CreateKeyResponse } from "../../gen/callercontext/v1/admin_pb.ts";

// Human renderings. `--json` prints the objects themselves; these are for eyes.

/** Aligned "label  value" lines. */
export function fields(rows: readonly (readonly [string, string | number])[]): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join("\n");
}

export function formatAccount(account: Account): string {
  return fields([
    ["account", account.accountId],
    ["billing account", account.billingAccountId],
    ["name", account.name],
    ["tier", account.tier],
    ["quota remaining", account.quotaRemaining],
    ["context retention", `${account.contextRetentionDays} days`],
    ["repeat window", `${account.repeatWindowDays} days`],
  ]);
}

export function formatCreatedKey(key: CreateKeyResponse): string {
  return [
    fields([
      ["key", key.keyId],
      ["account", key.accountId],
      ["kind", key.kind],
      ["api key", key.apiKey],
    ]),
    "",
    "Save the API key now: it is not shown again.",
  ].join("\n");
}

export function formatKeyList(accountId: string, keys: readonly ApiKey[]): string {
  if (keys.length === 0) return `No keys for account ${accountId}.`;
  return table([
    ["KEY", "KIND", "PREFIX", "STATUS"],
    ...keys.map((key) => [key.keyId, key.kind, key.prefix, key.revoked ? "revoked" : "active"]),
  ]);
}

/** Rows as aligned columns, the first row the heading. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** A message in the wire's snake_case JSON, every field written, as the admin REST API answers it. */
export function wireJson<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>) {
  return toJson(schema, message, { useProtoFieldName: true, alwaysEmitImplicit: true });
}
