import http from "node:http";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

// A body over BODY_LIMIT_BYTES is answered 413 before it has all arrived; the
// client, still writing, must read that answer rather than a reset (EPIPE,
// ECONNRESET). Without the lingering close, about one run in four failed here.

const RUNS = 20;
const BODY = Buffer.alloc(1_500_000, "a");

let database: TestDatabase | undefined;
let server: ServerProcess | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startServerProcess({ ...database.env, REDIS_URL: "", BODY_LIMIT_BYTES: String(1024 * 1024) });
});

afterAll(async () => {
  await server?.stop();
  await database?.drop();
});

/** One raw node:http request on a connection of its own; the status and body it read, or its error code. */
function postOversized(url: string, expectContinue: boolean): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const req = http.request({
      host: hostname,
      port,
      method: "POST",
      path: "/v1/calls/start",
      agent: false,
      headers: {
        "content-type": "application/json",
        "content-length": BODY.length,
        authorization: "Bearer sk_test_0000000000000000000000000000000000",
        ...(expectContinue ? { expect: "100-continue" } : {}),
      },
    });
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve(`${res.statusCode} ${text}`));
      res.on("error", (error: NodeJS.ErrnoException) => resolve(`response ${error.code ?? error.message}`));
    });
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    if (expectContinue) req.on("continue", () => req.end(BODY));
    else req.end(BODY);
  });
}

test.for([false, true])(
  "a 1.5 MB body, Expect: 100-continue %s: the 413 JSON arrives in every run",
  async (expectContinue) => {
    const outcomes: string[] = [];
    for (let i = 0; i < RUNS; i++) outcomes.push(await postOversized(server!.url, expectContinue));
    const expected = `413 ${JSON.stringify({ error: "Payload Too Large", message: "Request body is too large" })}`;
    expect(outcomes).toEqual(Array(RUNS).fill(expected));
  },
);
