import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startBody } from "../helpers/call-client.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// Server reflection as a tool that never saw our proto files uses it: buf's
// own client, over h2c, with no --schema.

const run = promisify(execFile);
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

async function bufCurl(...args: string[]): Promise<string> {
  const { stdout } = await run(
    "node_modules/.bin/buf",
    ["curl", "--protocol", "grpc", "--http2-prior-knowledge", ...args],
    { timeout: 20_000 },
  );
  return stdout;
}

describe.each(["v1", "v1alpha"])("gRPC server reflection %s", (version) => {
  test("buf curl --list-services lists every service", async () => {
    const listed = await bufCurl("--reflect-protocol", `grpc-${version}`, "--list-services", server.url);
    expect(listed.trim().split("\n").sort()).toEqual([
      "callercontext.v1.AdminService",
      "callercontext.v1.CallerContextService",
      "callercontext.v1.CustomerService",
      "callercontext.v1.HealthService",
      "callercontext.v1.IntegrationService",
      "grpc.health.v1.Health",
      "grpc.reflection.v1.ServerReflection",
      "grpc.reflection.v1alpha.ServerReflection",
    ]);
  });

  test("buf curl calls StartCall without --schema, describing it from reflection", async () => {
    const { apiKey } = await createAccountWithKey(server.url);
    const body = startBody();
    const output = await bufCurl(
      "--reflect-protocol",
      `grpc-${version}`,
      "-H",
      `Authorization: Bearer ${apiKey}`,
      "-d",
      JSON.stringify(body),
      `${server.url}/callercontext.v1.CallerContextService/StartCall`,
    );
    expect(JSON.parse(output)).toMatchObject({ callId: body.call_id, customerRef: expect.any(String) });
  });
});

test("buf curl --list-methods lists each service's methods", async () => {
  const methods = await bufCurl("--list-methods", server.url);
  expect(methods).toContain("callercontext.v1.CallerContextService/StartCall");
  expect(methods).toContain("grpc.health.v1.Health/Watch");
});

test("buf curl over Connect with the proto files shows a refusal's ValidationFailure, as docs/api.md says", async () => {
  const { apiKey } = await createAccountWithKey(server.url);
  const refused = await run(
    "node_modules/.bin/buf",
    [
      "curl",
      "--protocol",
      "connect",
      "--schema",
      "proto",
      "-H",
      `Authorization: Bearer ${apiKey}`,
      "-d",
      '{"call_id": ""}',
      `${server.url}/callercontext.v1.CallerContextService/StartCall`,
    ],
    { timeout: 20_000 },
  ).catch((error: { code: number; stderr: string }) => error);
  expect("code" in refused && refused.code).toBe(24);
  const printed = JSON.parse((refused as { stderr: string }).stderr.replace(/^npm warn.*\n/gm, ""));
  expect(printed).toMatchObject({ code: "invalid_argument", message: "Validation failed" });
  expect(printed.details[0]).toMatchObject({
    type: "callercontext.v1.ValidationFailure",
    debug: { issues: expect.arrayContaining([{ path: ["call_id"], message: "Required" }]) },
  });
});

test("buf curl and Connect's JSON take an enum by its proto name (INTENT_STATUS_OPEN), not REST's \"open\", as docs/api.md says", async () => {
  const { apiKey } = await createAccountWithKey(server.url);
  const start = startBody();
  const started = await post(server.url, "/v1/calls/start", apiKey, start);
  const ending = { call_id: start.call_id, customer_ref: started.body.customer_ref, intent: "billing_question" };
  const end = (intentStatus: string) =>
    bufCurl(
      "-H",
      `Authorization: Bearer ${apiKey}`,
      "-d",
      JSON.stringify({ ...ending, intent_status: intentStatus }),
      `${server.url}/callercontext.v1.CallerContextService/EndCall`,
    );
  const refused = await end("open").catch((error: { stderr: string }) => error.stderr);
  expect(refused).toMatch(/invalid value for enum field intentStatus: "open"/);
  const overConnect = await fetch(`${server.url}/callercontext.v1.CallerContextService/EndCall`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ ...ending, intent_status: "open" }),
  });
  const connectError = await overConnect.json();
  expect([overConnect.status, connectError.code]).toEqual([400, "invalid_argument"]);
  expect(connectError.details[0].debug.issues).toEqual([
    { path: ["intent_status"], message: "Expected one of: INTENT_STATUS_OPEN, INTENT_STATUS_RESOLVED" },
  ]);
  expect(JSON.parse(await end("INTENT_STATUS_OPEN"))).toMatchObject({ callId: start.call_id, intentsUpdated: 1 });
});
