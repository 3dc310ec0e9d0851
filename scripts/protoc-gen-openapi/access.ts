// The access option (proto/callercontext/v1/options.proto) as the document
// needs it: which credential, and which of the guards' answers apply.

export type Access = "api_key" | "public" | "admin" | "not_billed" | "not_metered" | "integration";

const BY_NUMBER: Readonly<Record<number, Access>> = {
  0: "api_key",
  1: "public",
  2: "admin",
  3: "not_billed",
  4: "not_metered",
  5: "integration",
};

export function accessOf(optionValue: number): Access {
  const access = BY_NUMBER[optionValue];
  if (access === undefined) throw new Error(`access option ${optionValue} has no OpenAPI form yet`);
  return access;
}

/** The security requirement: an API key, the admin token, or none (a webhook is verified the platform's way). */
export function securityOf(access: Access): Record<string, string[]>[] {
  if (access === "public" || access === "integration") return [];
  return [{ [access === "admin" ? "adminToken" : "apiKey"]: [] }];
}

/**
 * Rate limited with the X-RateLimit-* headers on every answer and 429 beyond the limit. A webhook counts
 * against its account's limit too, but the platform is never refused: over it, the inbound webhook is answered
 * 2xx without context (docs/integrations.md), with no limit headers.
 */
export const isRateLimited = (access: Access) => access === "api_key" || access === "not_billed";

/** Billed: X-Quota-Remaining on every answer, and 402 when the quota is used up. */
export const isBilled = (access: Access) => access === "api_key";
