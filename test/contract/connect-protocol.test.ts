import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { describe, expect, test } from "vitest";
import { CallerContextService, IdentityLevel } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

const fixture = useTestServer();

describe("the Connect protocol over HTTP/1.1 on the same port", () => {
  test("start and end with a generated Connect client", async () => {
    const client = createClient(
      CallerContextService,
      createConnectTransport({ baseUrl: fixture.server.url, httpVersion: "1.1", useBinaryFormat: false }),
    );
    const headers = { authorization: `Bearer ${fixture.apiKey}` };
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
      createConnectTransport({ baseUrl: fixture.server.url, httpVersion: "1.1" }),
    );
    const error = await client.startCall({ callId: "connect-2", identityHints: { ani: "+1" } }).catch((e) => e);
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.Unauthenticated);
  });
});
