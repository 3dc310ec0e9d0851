import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { CustomerIdentifier } from "../../src/domain/customer.ts";
import { createForgetMeHasher } from "../../src/domain/forget-me.ts";
import type { Tenant } from "../../src/domain/tenant.ts";

// The marks already stored were written as HMAC-SHA-256 under the pepper's bytes: the hasher must keep giving
// exactly those, and follow the pepper when it changes.

const tenant: Tenant = { accountId: "0b6f4c1e-8a52-4d1c-9d0e-6f1b2a3c4d5e", mode: "prod" };
const identifiers: CustomerIdentifier[] = [
  { kind: "ani", namespace: "", value: "+14155550123" },
  { kind: "external_id", namespace: "crm", value: "A-17" },
];

function reference(pepper: Buffer, id: CustomerIdentifier): string {
  return createHmac("sha256", pepper)
    .update([tenant.accountId, tenant.mode, id.kind, id.namespace, id.value].join("\u0000"))
    .digest("hex");
}

describe("the forget-me hasher", () => {
  it("gives HMAC-SHA-256 under the pepper's bytes, the same on every call", () => {
    const pepper = randomBytes(32);
    const hasher = createForgetMeHasher(() => pepper);
    const expected = identifiers.map((id) => reference(pepper, id));
    expect(hasher.hashes(tenant, identifiers)).toEqual(expected);
    expect(hasher.hashes(tenant, identifiers)).toEqual(expected);
  });

  it("follows a pepper that changes", () => {
    let pepper = randomBytes(32);
    const hasher = createForgetMeHasher(() => pepper);
    const before = hasher.hashes(tenant, identifiers);
    pepper = randomBytes(32);
    const after = hasher.hashes(tenant, identifiers);
    expect(after).toEqual(identifiers.map((id) => reference(pepper, id)));
    expect(after).not.toEqual(before);
  });
});
