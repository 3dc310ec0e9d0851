import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAccountWithKey, type JsonResponse, request } from "../helpers/rest-client.ts";
import { type Finished, runToExit } from "../helpers/run-to-exit.ts";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

// Containers start together: the service may come up before its PostgreSQL.
// It listens at once, answers 503 until the database is reachable and migrated,
// then serves without a restart. The database "appears" as a TCP proxy to the
// machine's PostgreSQL, opened on a port that had nothing listening.

const ABSENT_MS = 2_500;

let database: TestDatabase | undefined;
let proxy: net.Server | undefined;
let server: ServerProcess | undefined;
const seen = {
  whileAbsent: [] as JsonResponse[],
  callWhileAbsent: undefined as JsonResponse | undefined,
  healthyAfterMs: undefined as number | undefined,
  callAfter: 0,
  failedAttemptLines: [] as Record<string, unknown>[],
  gaveUp: undefined as Finished | undefined,
};

/** A port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const probe = net.createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => probe.once("listening", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function openProxy(port: number, target: URL): Promise<net.Server> {
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

beforeAll(async () => {
  if (!process.env.DATABASE_URL) throw new Error("The start-up wait is shown on PostgreSQL; set DATABASE_URL");
  database = await createTestDatabase();
  const real = new URL(database.env.DATABASE_URL);
  const port = await freePort();
  const viaProxy = new URL(real);
  viaProxy.port = String(port);

  server = await startServerProcess({ DATABASE_URL: viaProxy.toString(), REDIS_URL: "" }, { until: "listening" });
  const startedAt = performance.now();
  while (performance.now() - startedAt < ABSENT_MS) {
    seen.whileAbsent.push(await request(server.url, "GET", "/v1/health"));
    await sleep(250);
  }
  seen.callWhileAbsent = await request(server.url, "POST", "/v1/calls/start", {
    token: "sk_test_anything",
    body: { call_id: "early" },
  });

  proxy = await openProxy(port, real);
  const appearedAt = performance.now();
  for (let i = 0; i < 200; i++) {
    if ((await request(server.url, "GET", "/v1/health")).status === 200) {
      seen.healthyAfterMs = performance.now() - appearedAt;
      break;
    }
    await sleep(100);
  }
  const { apiKey } = await createAccountWithKey(server.url);
  seen.callAfter = (
    await request(server.url, "POST", "/v1/calls/start", {
      token: apiKey,
      body: { call_id: "after", identity_hints: { ani: "+14155550123" } },
    })
  ).status;
  seen.failedAttemptLines = server.output
    .filter((line) => line.includes("database not reachable yet"))
    .map((line) => JSON.parse(line));

  seen.gaveUp = await runToExit(["src/main.ts"], {
    DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/postgres`,
    STARTUP_DB_WAIT_S: "1",
    PORT: "0",
    REDIS_URL: "",
    ADMIN_TOKEN: "test-admin-token-0123456789abcdefghij",
  });
});

afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
  await database?.drop();
});

describe("started before its database", () => {
  test("health answers 503, database disconnected, with Retry-After, while the database is absent", () => {
    expect(seen.whileAbsent.length).toBeGreaterThanOrEqual(5);
    for (const res of seen.whileAbsent) {
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: "unhealthy", database: "disconnected" });
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });

  test("a call answers 503 with Retry-After, not 401 or 500", () => {
    expect(seen.callWhileAbsent?.status).toBe(503);
    expect(seen.callWhileAbsent?.body).toMatchObject({ error: "Service Unavailable" });
    expect(Number(seen.callWhileAbsent?.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("once the database appears: health 200 and calls served, without a restart", async ({ annotate }) => {
    expect(seen.healthyAfterMs).toBeDefined();
    expect(seen.callAfter).toBe(200);
    expect(server?.running()).toBe(true);
    await annotate(`healthy ${Math.round(seen.healthyAfterMs ?? 0)} ms after the database appeared`);
  });

  test("each failed attempt is one structured warn line, no stack trace, with a growing, capped delay", () => {
    expect(seen.failedAttemptLines.length).toBeGreaterThanOrEqual(3);
    const delays = seen.failedAttemptLines.map((line) => line.retryInMs as number);
    for (const line of seen.failedAttemptLines) {
      expect(line.level).toBe(40);
      expect(line.reason).toMatch(/ECONNREFUSED/);
      expect(JSON.stringify(line)).not.toContain("    at ");
    }
    expect(delays.slice(0, 3)).toEqual([250, 500, 1000]);
    expect(Math.max(...delays)).toBeLessThanOrEqual(5000);
  });
});

test("STARTUP_DB_WAIT_S bounds the wait: then exit 1 with one line", async ({ annotate }) => {
  expect(seen.gaveUp?.code).toBe(1);
  expect(seen.gaveUp?.stderr).toMatch(
    /^caller-context: database not reachable after 1 s \(STARTUP_DB_WAIT_S=1\): .*ECONNREFUSED.*\n$/,
  );
  expect(seen.gaveUp?.ms).toBeLessThan(10_000);
  await annotate(`gave up and exited after ${Math.round(seen.gaveUp?.ms ?? 0)} ms`);
});

test("a configuration error still stops the start at once", async () => {
  const bad = await runToExit(["src/main.ts"], { DATABASE_URL: "not a url", PORT: "0" });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("DATABASE_URL");
  expect(bad.stdout).not.toContain("caller context listening");
});

test("with a host list, a database that refuses the service stops the start at once too, with one line", async () => {
  const real = new URL(process.env.DATABASE_URL!);
  const hosts = `127.0.0.1:${await freePort()},${real.hostname}:${real.port || 5432}`;
  const startedAt = performance.now();
  const refused = await runToExit(["src/main.ts"], {
    DATABASE_URL: `postgres://postgres@${hosts}/cc_no_such_database?target_session_attrs=read-write`,
    PORT: "0",
    METRICS_PORT: "0",
    REDIS_URL: "",
  });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/^caller-context: database start-up failed: 3D000 .*cc_no_such_database.*\n$/);
  expect(performance.now() - startedAt).toBeLessThan(20_000);
});
