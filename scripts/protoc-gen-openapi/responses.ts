import { type Access, isBilled, isRateLimited } from "./access.ts";
import type { Schema } from "./json-schemas.ts";

// The error statuses each kind of route can answer, with their bodies and
// headers, as the guards, the REST adapter and the host produce them.

export type Operation = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

function response(description: string, schema: Schema, headerNames: string[] = []): Schema {
  return {
    description,
    ...(headerNames.length > 0 ? { headers: Object.fromEntries(headerNames.map((name) => [name, header(name)])) } : {}),
    content: { "application/json": { schema } },
  };
}

export interface ResponseShape {
  /** The operation reads a JSON body (not GET or DELETE): 413 and 415 apply. */
  readonly hasBody: boolean;
  /** The operation takes an Idempotency-Key: 422 for a key reused with another body. */
  readonly idempotent: boolean;
}

export function errorResponses(access: Exclude<Access, "public">, shape: ResponseShape): Record<string, Schema> {
  const limitHeaders = isRateLimited(access) ? ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"] : [];
  const guardHeaders = [...limitHeaders, ...(isBilled(access) ? ["X-Quota-Remaining"] : [])];
  const credential =
    access === "admin"
      ? "Missing or wrong admin token"
      : access === "integration"
        ? "The webhook's credential (signature or secret) is missing or wrong"
        : "Missing, invalid or revoked API key";
  return {
    "400": response(
      "The request is not valid (message: `Validation failed`)",
      { anyOf: [ref("ValidationError"), ref("Error")] },
      guardHeaders,
    ),
    "401": response(credential, ref("Error")),
    ...(isBilled(access)
      ? { "402": response("The monthly quota is used up; no grace", ref("QuotaError"), guardHeaders) }
      : {}),
    "404": response("No such resource", ref("Error"), guardHeaders),
    "409": response(
      "Conflicts with the current state (a call_id already started, a call already ended)",
      ref("Error"),
      guardHeaders,
    ),
    ...(shape.hasBody
      ? {
          "413": response("The body is larger than the limit", ref("Error")),
          "415": response("Content-Type is not application/json", ref("Error")),
        }
      : {}),
    ...(shape.idempotent
      ? { "422": response("The Idempotency-Key was used before with another body", ref("Error"), guardHeaders) }
      : {}),
    "429": response(
      isRateLimited(access)
        ? "Rate limit exceeded beyond the grace margin, or too many failed authentications"
        : "Too many failed authentications",
      ref("RateLimitError"),
      ["Retry-After", ...limitHeaders],
    ),
    "500": response("Unexpected server failure", ref("Error")),
    "503": response("The database does not answer, or the time budget ran out; retry", ref("Error"), ["Retry-After"]),
    default: response("Any other failure, in the same shape", ref("Error")),
  };
}

export const securitySchemes = {
  apiKey: {
    type: "http",
    scheme: "bearer",
    description: "An API key (sk_test_… or sk_prod_…): Authorization: Bearer <key>",
  },
  adminToken: {
    type: "http",
    scheme: "bearer",
    description: "The operator's admin token: Authorization: Bearer $ADMIN_TOKEN",
  },
};

const integerHeader = (description: string) => ({ description, schema: { type: "integer" } });

export const headers = {
  "X-RateLimit-Limit": integerHeader("The key's tier limit per minute"),
  "X-RateLimit-Remaining": integerHeader("Requests left in the current 60-second window"),
  "X-RateLimit-Reset": integerHeader("When the window resets, as epoch milliseconds"),
  "X-Quota-Remaining": integerHeader("Remaining monthly quota"),
  "Retry-After": integerHeader("Seconds to wait before retrying"),
};
