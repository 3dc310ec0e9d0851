import { Pool } from "undici";
import { type CallDriver, endJson, RequestFailure, startJson } from "./call-driver.ts";

// REST over HTTP/1.1 keep-alive with undici's Pool: little client overhead
// per request, so the client does not hide the server's own cost.

const REQUEST_TIMEOUT_MS = 10_000;

export function createRestDriver(baseUrl: string, apiKeys: readonly string[], connections: number): CallDriver {
  const pool = new Pool(baseUrl, {
    connections,
    pipelining: 1,
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: 60_000,
  });
  const authorizations = apiKeys.map((key) => `Bearer ${key}`);
  let sent = 0;

  const post = async (path: string, body: string, extra: Record<string, string> = {}) => {
    const response = await pool.request({
      path,
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: authorizations[sent++ % authorizations.length],
        ...extra,
      },
      body,
      // A whole-request deadline, as gRPC's: waiting for a free connection counts too.
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (response.statusCode !== 200) {
      // The message tells a refusal by the admission control from one by the time budget.
      const text = await response.body.text().catch(() => "");
      throw new RequestFailure(`http ${response.statusCode}`, messageOf(text));
    }
    return response.body;
  };

  return {
    name: "REST",
    async start(call) {
      const body = await post("/v1/calls/start", startJson(call));
      const answer = (await body.json()) as { customer_ref?: unknown };
      if (typeof answer.customer_ref !== "string") throw new RequestFailure("no customer_ref");
      return answer.customer_ref;
    },
    async end(call, customerRef) {
      const body = await post("/v1/calls/end", endJson(call, customerRef), { "idempotency-key": call.idempotencyKey });
      await body.dump();
    },
    async close() {
      await pool.close();
    },
  };
}

function messageOf(text: string): string | undefined {
  try {
    const message = (JSON.parse(text) as { message?: unknown }).message;
    return typeof message === "string" ? message : undefined;
  } catch {
    return undefined;
  }
}
