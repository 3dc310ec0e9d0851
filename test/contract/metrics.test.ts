import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { envToConfig } from "../../src/config.ts";
import { type CallClient, createCallClient, startBody } from "../helpers/call-client.ts";
import { type MetricsText, readMetricsText } from "../helpers/prometheus-text.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let calls: CallClient;

beforeAll(async () => {
  server = await startTestServer();
  calls = createCallClient(server.url);
});
afterAll(async () => {
  calls.close();
  await server.stop();
});

async function scrape(baseUrl = server.metricsUrl): Promise<MetricsText> {
  const res = await fetch(`${baseUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return readMetricsText(await res.text());
}

const START = { rpc_service: "callercontext.v1.CallerContextService", rpc_method: "StartCall" };

describe("GET /metrics", () => {
  test("is Prometheus text, served without a key, with the process defaults and the service's families", async () => {
    const metrics = await scrape();
    expect(metrics.types.get("http_server_request_duration_seconds")).toBe("HISTOGRAM");
    expect(metrics.types.get("rpc_server_call_duration_seconds")).toBe("HISTOGRAM");
    expect(metrics.types.get("api_refusals_total")).toBe("COUNTER");
    expect(metrics.types.get("nodejs_eventloop_lag_seconds")).toBe("GAUGE");
    expect(metrics.types.get("process_resident_memory_bytes")).toBe("GAUGE");
    if (server.config.database.kind === "postgres") {
      expect(metrics.samples.some((s) => s.name === "db_client_connections")).toBe(true);
    }
  });

  test("Prometheus's own promtool finds nothing to object to, also in a scrape right after another", async () => {
    const { apiKey } = await createAccountWithKey(server.url);
    expect((await calls.start("grpc", apiKey, startBody())).status).toBe(200);
    for (let scrapeNumber = 0; scrapeNumber < 2; scrapeNumber++) {
      const text = await (await fetch(`${server.metricsUrl}/metrics`)).text();
      expect(text).not.toMatch(/ nan$/im);
      const promtool = spawn("promtool", ["check", "metrics"], { stdio: ["pipe", "pipe", "pipe"] });
      let report = "";
      promtool.stdout.on("data", (chunk) => (report += chunk));
      promtool.stderr.on("data", (chunk) => (report += chunk));
      promtool.stdin.end(text);
      const [code] = await once(promtool, "exit");
      expect({ code, report }).toEqual({ code: 0, report: "" });
    }
  });

  test("a start over REST moves its HTTP series (not the RPC one: REST is not RPC) and the recommendation count", async () => {
    const { apiKey } = await createAccountWithKey(server.url);
    const before = await scrape();
    expect((await calls.start("rest", apiKey, startBody())).status).toBe(200);
    const after = await scrape();
    const http = { http_request_method: "POST", http_route: "/v1/calls/start", http_response_status_code: "200" };
    expect(after.value("http_server_request_duration_seconds_count", http)).toBe(
      before.value("http_server_request_duration_seconds_count", http) + 1,
    );
    const rpcCount = (text: typeof after) =>
      text.samples
        .filter((sample) => sample.name === "rpc_server_call_duration_seconds_count")
        .reduce((n, sample) => n + sample.value, 0);
    expect(rpcCount(after)).toBe(rpcCount(before));
    const ignore = { recommendation: "ignore" };
    expect(after.value("identity_recommendations_total", ignore)).toBe(
      before.value("identity_recommendations_total", ignore) + 1,
    );
    expect(
      after.samples.filter((sample) => sample.name === "rpc_server_active_calls").every((s) => s.value === 0),
    ).toBe(true);
    // The call went through the admission control, which reports its limit and counts.
    expect(after.value("admission_admitted_total")).toBe(before.value("admission_admitted_total") + 1);
    expect(after.value("admission_limit")).toBeGreaterThanOrEqual(server.config.admission.limit.min);
    expect(after.value("admission_in_flight")).toBe(0);
    expect(after.value("admission_refusals_total", { reason: "limit" })).toBe(0);
    // Scrapes go to the metrics listener, not through the API's port.
    const scrapeSeries = { http_request_method: "GET", http_route: "/metrics", http_response_status_code: "200" };
    expect(after.value("http_server_request_duration_seconds_count", scrapeSeries)).toBe(0);
  });

  test("the database's blocks touched grow with the calls it serves, as the database counts them", async () => {
    const { apiKey } = await createAccountWithKey(server.url);
    const before = (await scrape()).value("db_blocks_touched_total");
    expect(before).toBeGreaterThan(0);
    for (let n = 0; n < 5; n++) expect((await calls.start("rest", apiKey, startBody())).status).toBe(200);
    // PostgreSQL's other sessions report their counts within a second of going idle.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const after = (await scrape()).value("db_blocks_touched_total");
    // Five starts touch tens of blocks each.
    expect(after - before).toBeGreaterThan(5 * 10);
  });

  test("the dashboard's pages are counted by their route template, never by a path holding a token", async () => {
    const token = randomUUID();
    const before = await scrape();
    const pages = await Promise.all(
      ["/dashboard/sign-in", `/dashboard/verify/${token}`].map((path) => fetch(`${server.url}${path}`)),
    );
    const after = await scrape();
    for (const [page, route] of [
      [pages[0]!, "/dashboard/sign-in"],
      [pages[1]!, "/dashboard/verify/:token"],
    ] as const) {
      const series = { http_request_method: "GET", http_route: route, http_response_status_code: String(page.status) };
      expect(after.value("http_server_request_duration_seconds_count", series), route).toBe(
        before.value("http_server_request_duration_seconds_count", series) + 1,
      );
    }
    const routes = after.samples.map((sample) => sample.labels.http_route ?? "");
    expect(routes.filter((route) => route.includes(token))).toEqual([]);
  });

  test("gRPC and Connect starts move the RPC series by system and status; a quota refusal is counted by tier; no label names a key, customer or call", async () => {
    const { apiKey } = await createAccountWithKey(server.url, { tier: "starter", quota: 0 });
    const before = await scrape();
    const body = startBody();
    const refused = await calls.start("grpc", apiKey, body);
    expect(refused.status).toBe(402);
    const after = await scrape();
    const rpc = { rpc_system: "grpc", ...START, rpc_grpc_status_code: "8" };
    expect(after.value("rpc_server_call_duration_seconds_count", rpc)).toBe(
      before.value("rpc_server_call_duration_seconds_count", rpc) + 1,
    );
    const overConnect = await fetch(`${server.url}/callercontext.v1.CallerContextService/StartCall`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ callId: `connect-${body.call_id}`, identityHints: { ani: "+14155550142" } }),
    });
    expect(overConnect.status).toBe(429); // Connect answers resource_exhausted with 429
    const connect = { rpc_system: "connect_rpc", ...START, rpc_connect_rpc_error_code: "resource_exhausted" };
    expect((await scrape()).value("rpc_server_call_duration_seconds_count", connect)).toBe(
      before.value("rpc_server_call_duration_seconds_count", connect) + 1,
    );
    // gRPC calls are HTTP/2 requests too, named by their method.
    const http = {
      http_request_method: "POST",
      http_route: "/callercontext.v1.CallerContextService/StartCall",
      http_response_status_code: "200",
    };
    expect(after.value("http_server_request_duration_seconds_count", http)).toBe(
      before.value("http_server_request_duration_seconds_count", http) + 1,
    );
    const quota = { reason: "quota", tier: "starter" };
    expect(after.value("api_refusals_total", quota)).toBe(before.value("api_refusals_total", quota) + 1);

    const labelValues = after.samples.flatMap((sample) => Object.values(sample.labels));
    for (const secret of [apiKey, body.call_id]) expect(labelValues.join("\n")).not.toContain(secret);
    expect(labelValues.some((value) => /[0-9a-f]{8}-[0-9a-f]{4}-/.test(value))).toBe(false);
  });
});

test("/metrics is served on a listener of its own on 127.0.0.1, never on the API's port", async () => {
  expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(server.metricsUrl).not.toBe(server.url);
  expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  expect(envToConfig({}).metricsListen).toEqual({ host: "127.0.0.1", port: 9464, token: undefined });
});

test("with METRICS_TOKEN, /metrics answers 401 without the bearer token and 200 with it", async () => {
  const token = "metrics-token-0123456789abcdefghijklmn";
  const guarded = await startTestServer({ env: { METRICS_TOKEN: token } });
  try {
    expect((await fetch(`${guarded.metricsUrl}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${guarded.metricsUrl}/metrics`, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${guarded.metricsUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(right.status).toBe(200);
    expect(readMetricsText(await right.text()).types.get("rpc_server_call_duration_seconds")).toBe("HISTOGRAM");
  } finally {
    await guarded.stop();
  }
});

test("with METRICS=off there is no /metrics and calls still work", async () => {
  const off = await startTestServer({ env: { METRICS: "off" } });
  try {
    expect(off.metricsUrl).toBeUndefined();
    expect((await fetch(`${off.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${off.url}/v1/health`)).status).toBe(200);
  } finally {
    await off.stop();
  }
});
