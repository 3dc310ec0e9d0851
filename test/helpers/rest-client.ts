import { randomUUID } from "node:crypto";
import { assertDocumentedResponse } from "./openapi-contract.ts";
import { ADMIN_TOKEN } from "./test-server.ts";

export interface JsonResponse<T = any> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

/** A JSON request over real HTTP/1.1, as any client of the REST contract makes it. */
export async function request<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string; token?: string; headers?: Record<string, string> } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let payload: string | undefined = options.rawBody;
  if (options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined && headers["content-type"] === undefined) headers["content-type"] = "application/json";
  const url = new URL(path, baseUrl);
  const response = await fetch(url, { method, headers, body: payload });
  const text = await response.text();
  const body = text === "" ? undefined : JSON.parse(text);
  assertDocumentedResponse(method, url, response.status, body, response.headers);
  return { status: response.status, headers: response.headers, body };
}

export function post<T = any>(
  baseUrl: string,
  path: string,
  token: string | undefined,
  body: unknown,
  headers?: Record<string, string>,
) {
  return request<T>(baseUrl, "POST", path, { token, body, headers });
}

/** Creates an account and a key through the admin API; returns the key's secret. */
export async function createAccountWithKey(
  baseUrl: string,
  options: { tier?: string; quota?: number; kind?: "test" | "prod" } = {},
): Promise<{ accountId: string; billingAccountId: string; apiKey: string; keyId: string }> {
  const account = await post(baseUrl, "/admin/v1/accounts", ADMIN_TOKEN, {
    name: "Test account",
    tier: options.tier ?? "growth",
    quota: options.quota ?? 100_000,
  });
  if (account.status !== 200) throw new Error(`create account: ${JSON.stringify(account.body)}`);
  const accountId = account.body.account.account_id;
  const key = await post(baseUrl, `/admin/v1/accounts/${accountId}/keys`, ADMIN_TOKEN, {
    kind: options.kind ?? "test",
  });
  if (key.status !== 200) throw new Error(`create key: ${JSON.stringify(key.body)}`);
  return {
    accountId,
    billingAccountId: account.body.account.billing_account_id,
    apiKey: key.body.api_key,
    keyId: key.body.key_id,
  };
}

/**
 * A whole call over REST: started with `hints`, ended with `end` (its intent, variables…), each answered 200
 * or the test fails; the call's id and the customer's ref.
 */
export async function startAndEndCall(
  baseUrl: string,
  apiKey: string,
  hints: object,
  end: object = {},
): Promise<{ callId: string; customerRef: string }> {
  const callId = `call-${randomUUID()}`;
  const started = await post(baseUrl, "/v1/calls/start", apiKey, { call_id: callId, identity_hints: hints });
  if (started.status !== 200) throw new Error(`start answered ${started.status}: ${JSON.stringify(started.body)}`);
  const customerRef = started.body.customer_ref as string;
  const ended = await post(baseUrl, "/v1/calls/end", apiKey, { call_id: callId, customer_ref: customerRef, ...end });
  if (ended.status !== 200) throw new Error(`end answered ${ended.status}: ${JSON.stringify(ended.body)}`);
  return { callId, customerRef };
}
