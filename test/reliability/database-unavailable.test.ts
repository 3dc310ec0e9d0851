import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CallClient, createCallClient, startBody, TRANSPORTS } from "../helpers/call-client.ts";
import { createAccountWithKey, request } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let calls: CallClient;
let apiKey: string;

beforeAll(async () => {
  server = await startTestServer();
  calls = createCallClient(server.url);
  ({ apiKey } = await createAccountWithKey(server.url));
  // Warm the key cache the way live traffic would, then lose the database.
  expect((await calls.start("rest", apiKey, startBody())).status).toBe(200);
  await server.context.database.close();
});
afterAll(async () => {
  calls.close();
  await server.stop();
});

describe.each(TRANSPORTS)("while the database cannot be reached, over %s", (via) => {
  test("a start fails fast with 503 and Retry-After, never 500", async () => {
    const outcome = await calls.start(via, apiKey, startBody());
    expect(outcome.status).toBe(503);
    expect(outcome.headers["retry-after"]).toBe("1");
    if (via === "rest") {
      expect(outcome.body).toEqual({ error: "Service Unavailable", message: "Service temporarily unavailable" });
    } else {
      expect(outcome.grpcError?.code).toBe(status.UNAVAILABLE);
    }
  });
});

describe("health while the database cannot be reached", () => {
  test("reports disconnected with 503, and the process keeps answering", async () => {
    const res = await request(server.url, "GET", "/v1/health");
    expect(res.status).toBe(503);
    expect(res.body.database).toBe("disconnected");
  });
});
