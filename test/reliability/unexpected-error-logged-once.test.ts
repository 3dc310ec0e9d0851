import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { createCallClient, startBody, uniqueCallId } from "../helpers/call-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// An unexpected error (a bug: here, a table the start reads is missing) is
// logged once per request, with its request id, whichever host served it:
// the chain's error boundary logs it and hands on its public form, which no
// host logs again.

const MISSING_TABLE = "customer_identifiers";
const fixture = useTestServer();

beforeAll(async () => {
  await sql`alter table ${sql.raw(MISSING_TABLE)} rename to ${sql.raw(`${MISSING_TABLE}_away`)}`.execute(
    fixture.server.context.database.db,
  );
});
afterAll(async () => {
  await sql`alter table ${sql.raw(`${MISSING_TABLE}_away`)} rename to ${sql.raw(MISSING_TABLE)}`.execute(
    fixture.server.context.database.db,
  );
});

/** The lines logged while `request` ran that carry the missing table's error, or any other error. */
async function linesLoggedFor(request: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const before = fixture.server.logLines.length;
  await request();
  return fixture.server.logLines
    .slice(before)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => JSON.stringify(line).includes(MISSING_TABLE) || (line.level as number) >= 50);
}

function expectOneUnexpectedError(lines: Record<string, unknown>[]) {
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ level: 50, msg: "unexpected error", rpc: "StartCall" });
  expect(lines[0]?.reqId).toEqual(expect.any(String));
}

describe("an unexpected error is logged once per request", () => {
  test.each(["rest", "grpc"] as const)("over %s", async (via) => {
    const calls = createCallClient(fixture.server.url);
    try {
      const lines = await linesLoggedFor(async () => {
        const outcome = await calls.start(via, fixture.apiKey, startBody());
        expect(outcome.status).toBe(500);
      });
      expectOneUnexpectedError(lines);
    } finally {
      calls.close();
    }
  });

  test("over Connect", async () => {
    const client = createClient(
      CallerContextService,
      createConnectTransport({ baseUrl: fixture.server.url, httpVersion: "1.1" }),
    );
    const lines = await linesLoggedFor(async () => {
      const error = await client
        .startCall(
          { callId: uniqueCallId(), identityHints: { ani: "+14155550123" } },
          { headers: { authorization: `Bearer ${fixture.apiKey}` } },
        )
        .catch((thrown: unknown) => thrown);
      expect(ConnectError.from(error).code).toBe(Code.Internal);
    });
    expectOneUnexpectedError(lines);
  });
});
