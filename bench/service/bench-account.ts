import { adminPost } from "./admin-post.ts";

// The account a run seeded through the API calls on: a Scale account with
// credits for every call of the run, made through the admin API as an
// operator makes one.

export async function createBenchAccount(baseUrl: string, adminToken: string, name = "Benchmark"): Promise<string> {
  const response = await adminPost(baseUrl, adminToken, "/admin/v1/accounts", {
    name,
    tier: "scale",
    quota: 100_000_000,
  });
  const body = response.body as { account?: { account_id?: string } };
  const id = body.account?.account_id;
  if (response.status !== 200 || id === undefined) throw new Error(`creating the account: ${JSON.stringify(body)}`);
  return id;
}
