// A POST to the admin API as an operator's tool makes it: a 503 (the server shedding load, on a machine busy
// with the benchmark's own calls) is sent again after its Retry-After, a few times, before it counts as a failure.

const ATTEMPTS = 10;

export async function adminPost(
  baseUrl: string,
  adminToken: string,
  path: string,
  body: object,
): Promise<{ status: number; body: unknown }> {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(new URL(path, baseUrl), {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer: unknown = await response.json();
    if (response.status !== 503 || attempt === ATTEMPTS) return { status: response.status, body: answer };
    const seconds = Number(response.headers.get("retry-after") ?? "1");
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, seconds) * 1000));
  }
}
