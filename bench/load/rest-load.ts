import { Client, Pool } from "undici";
import { type CallDriver, endJson, RequestFailure, startJson } from "./call-driver.ts";

// REST over HTTP/1.1 with undici: little client overhead per request, so the
// client does not hide the server's own cost. Two of the client models real
// callers use: a fixed pool of keep-alive connections (Apache HttpClient,
// OkHttp, a Python requests.Session, most SDKs), and a new connection for every
// request (a webhook sender).

/** The client's whole-request deadline, waiting for a free connection included. */
const REQUEST_TIMEOUT_MS = 10_000;

type Send = (request: Parameters<Pool["request"]>[0]) => ReturnType<Pool["request"]>;

/** A fixed pool of `connections` keep-alive connections, one request each at a time. */
export function createRestDriver(baseUrl: string, apiKeys: readonly string[], connections: number): CallDriver {
  const pool = new Pool(baseUrl, {
    connections,
    pipelining: 1,
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: 60_000,
  });
  return restDriver(
    "REST",
    apiKeys,
    (request) => pool.request(request),
    () => pool.close(),
  );
}

/** A new connection for every request, closed once its answer is read. */
export function createRestPerRequestDriver(baseUrl: string, apiKeys: readonly string[]): CallDriver {
  const open = new Set<Client>();
  const send: Send = async (request) => {
    const client = new Client(baseUrl, { headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS });
    open.add(client);
    const closeClient = () => {
      open.delete(client);
      void client.close().catch(() => {});
    };
    try {
      const response = await client.request({ ...request, reset: true });
      // Read to its end by the caller; the connection closes once it is.
      response.body.once("close", closeClient);
      return response;
    } catch (error) {
      closeClient();
      throw error;
    }
  };
  const closeAll = async () => {
    await Promise.all([...open].map((client) => client.close().catch(() => {})));
  };
  return restDriver("REST new connection", apiKeys, send, closeAll);
}

function restDriver(name: string, apiKeys: readonly string[], send: Send, close: () => Promise<void>): CallDriver {
  const authorizations = apiKeys.map((key) => `Bearer ${key}`);
  let sent = 0;

  const post = async (path: string, body: string, extra: Record<string, string> = {}) => {
    const response = await send({
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
    name,
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
    close,
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
