import { post, request } from "./rest-client.ts";
import { ADMIN_TOKEN } from "./test-server.ts";

// The admin API calls the guard tests need, made as an operator makes them.

export async function createKey(baseUrl: string, accountId: string, kind: "test" | "prod") {
  const res = await post(baseUrl, `/admin/v1/accounts/${accountId}/keys`, ADMIN_TOKEN, { kind });
  if (res.status !== 200) throw new Error(`create key: ${JSON.stringify(res.body)}`);
  return { keyId: res.body.key_id as string, apiKey: res.body.api_key as string };
}

export async function setQuota(baseUrl: string, accountId: string, quotaRemaining: number): Promise<number> {
  const res = await post(baseUrl, `/admin/v1/accounts/${accountId}/quota`, ADMIN_TOKEN, {
    quota_remaining: quotaRemaining,
  });
  if (res.status !== 200) throw new Error(`set quota: ${JSON.stringify(res.body)}`);
  return res.body.account.quota_remaining;
}

/** The account's credits as the admin API reports them. */
export async function quotaOf(baseUrl: string, accountId: string): Promise<number> {
  const res = await request(baseUrl, "GET", `/admin/v1/accounts/${accountId}`, { token: ADMIN_TOKEN });
  if (res.status !== 200) throw new Error(`get account: ${JSON.stringify(res.body)}`);
  return res.body.account.quota_remaining;
}

export function revokeKey(baseUrl: string, keyId: string) {
  return post(baseUrl, `/admin/v1/keys/${keyId}/revoke`, ADMIN_TOKEN, {});
}
