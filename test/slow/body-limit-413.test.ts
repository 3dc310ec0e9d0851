import http from "node:http";
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
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

/**
 * Over a raw socket: the head and 64 KiB of the body, then, once the 413 has
 * arrived, the rest in 64 KiB pieces 10 ms apart, as a client on a slower link
 * would. How the connection ends: "closed" (FIN both ways) or the error.
 */
function sendRestAfterAnswer(url: string): Promise<{ answer: string; ending: string }> {
  const { hostname, port } = new URL(url);
  const split = 64 * 1024;
  return new Promise((resolve) => {
    // Half-open: the server's FIN after its answer must not stop us sending the rest.
    const socket = net.connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    let answer = "";
    let sentRest = false;
    const finish = (ending: string) => resolve({ answer: answer.split("\r\n")[0], ending });
    socket.write(
      `POST /v1/calls/start HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${BODY.length}\r\n\r\n`,
    );
    socket.write(BODY.subarray(0, split));
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      answer += chunk;
      if (!sentRest && answer.endsWith("}")) {
        sentRest = true;
        void sendSlowly(socket, BODY.subarray(split), split);
      }
    });
    socket.on("error", (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    socket.on("close", (hadError) => {
      if (!hadError) finish(sentRest ? "closed" : "closed before the answer");
    });
  });
}

async function sendSlowly(socket: net.Socket, rest: Buffer, piece: number): Promise<void> {
  for (let offset = 0; offset < rest.length && !socket.destroyed; offset += piece) {
    socket.write(rest.subarray(offset, offset + piece));
    await sleep(10);
  }
  if (!socket.destroyed) socket.end();
}

test("after its 413 the server reads what the client still sends, then closes without a reset", async () => {
  const outcomes: { answer: string; ending: string }[] = [];
  for (let i = 0; i < 5; i++) outcomes.push(await sendRestAfterAnswer(server!.url));
  expect(outcomes).toEqual(Array(5).fill({ answer: "HTTP/1.1 413 Payload Too Large", ending: "closed" }));
});
