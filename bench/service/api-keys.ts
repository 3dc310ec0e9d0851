import { BENCH_ACCOUNT_ID } from "../load/population.ts";
import { adminPost } from "./admin-post.ts";

// Test keys for the bench account, created through the admin API as an
// operator would. The scale tier allows 10 000 requests a minute per key;
// rotating over enough keys keeps the rate limit running on every request
// without refusing any.

export async function createApiKeys(
  baseUrl: string,
  adminToken: string,
  count: number,
  accountId = BENCH_ACCOUNT_ID,
): Promise<string[]> {
  const keys: string[] = [];
  for (let n = 0; n < count; n++) {
    const response = await adminPost(baseUrl, adminToken, `/admin/v1/accounts/${accountId}/keys`, { kind: "test" });
    const body = response.body as { api_key?: string };
    if (response.status !== 200 || typeof body.api_key !== "string") {
      throw new Error(`creating an API key failed: ${response.status} ${JSON.stringify(body)}`);
    }
    keys.push(body.api_key);
  }
  return keys;
}
