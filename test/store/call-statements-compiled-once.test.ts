import { describe, expect, test } from "vitest";
import { compileOnceCounts } from "../../src/database/compile-once.ts";
import { startBody, TRANSPORTS, uniqueCallId } from "../helpers/call-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// The start's and end's statements (the start's read of candidates, its
// billed write with a deadline, an end with an Idempotency-Key) must each be
// compiled once per shape and never handed to Kysely's compiler on the call's
// path: a builder that slips in a node compileOnce cannot read would quietly
// cost every call a compile again.

const fixture = useTestServer();

describe.each(TRANSPORTS)("calls over %s", (via) => {
  test("run their statements by shapes met before, none compiled by Kysely", async () => {
    const { calls, apiKey } = fixture;
    const call = async () => {
      const callId = uniqueCallId();
      const started = await calls.start(via, apiKey, startBody(callId));
      expect(started.status).toBe(200);
      const ended = await calls.end(
        via,
        apiKey,
        { call_id: callId, customer_ref: started.body.customer_ref, variables: { plan: "gold" }, intent: "billing" },
        { "idempotency-key": uniqueCallId("key") },
      );
      expect(ended.status).toBe(200);
    };
    await call(); // meets the shapes (in this process, perhaps already met)
    const before = compileOnceCounts();
    for (let i = 0; i < 3; i++) await call();
    const after = compileOnceCounts();
    expect(after.byKysely).toBe(before.byKysely);
    expect(after.newShape).toBe(before.newShape);
    // Each call: the start's read of candidates, its write, and the end's write; three times.
    expect(after.known - before.known).toBe(9);
  });
});
