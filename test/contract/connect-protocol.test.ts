import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CallerContextService, IdentityLevel } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ apiKey: key } = await createAccountWithKey(server.url));
});
afterAll(() => server.stop());

describe("the Connect protocol over HTTP/1.1 on the same port", () => {
  test("start and end with a generated Connect client", async () => {
    const client = createClient(
      CallerContextService,
      createConnectTransport({ baseUrl: server.url, httpVersion: "1.1", useBinaryFormat: false }),
    );
    const headers = { authorization: `Bearer ${key}` };
    const started = await client.startCall(
      { callId: "connect-1", identityHints: { ani: "+14155550801" } },
      { headers },
    );
    expect(started.identity?.level).toBe(IdentityLevel.LOW);
    const ended = await client.endCall(
      { callId: "connect-1", customerRef: started.customerRef, variables: { a: "1" } },
      { headers },
    );
    expect(ended.variablesUpdated).toBe(1);
  });

  test("errors arrive as Connect codes", async () => {
    const client = createClient(
      CallerContextService,
      createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }),
    );
    const error = await client.startCall({ callId: "connect-2", identityHints: { ani: "+1" } }).catch((e) => e);
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.Unauthenticated);
  });
});
