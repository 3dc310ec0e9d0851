import type { Access } from "./build-document.ts";
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

export function errorResponses(access: Exclude<Access, "public">, httpMethod: string): Record<string, Schema> {
  const guardHeaders = access === "api_key" ? ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"] : [];
  return {
    "400": response("The request is not valid (message: `Validation failed`)", {
      anyOf: [ref("ValidationError"), ref("Error")],
    }),
    "401":
      access === "admin"
        ? response("Missing or wrong admin token", ref("Error"))
        : response("Missing, invalid or revoked API key", ref("Error")),
    ...(access === "api_key"
      ? { "402": response("The monthly quota is used up; no grace", ref("QuotaError"), ["X-Quota-Remaining"]) }
      : {}),
    "404": response("No such resource", ref("Error")),
    "409": response("Conflicts with the current state (a call_id already started, a call already ended)", ref("Error")),
    ...(httpMethod === "GET"
      ? {}
      : {
          "413": response("The body is larger than the limit", ref("Error")),
          "415": response("Content-Type is not application/json", ref("Error")),
        }),
    "429": response(
      access === "admin" ? "Too many failed authentications" : "Rate limit exceeded beyond the grace margin",
      ref("RateLimitError"),
      ["Retry-After", ...guardHeaders],
    ),
    "500": response("Unexpected server failure", ref("Error")),
    "503": response("The database does not answer, or the time budget ran out; retry", ref("Error"), ["Retry-After"]),
    default: response(
      "Any other failure, in the same shape (422: an Idempotency-Key reused with another body)",
      ref("Error"),
    ),
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
