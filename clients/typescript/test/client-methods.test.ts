import { randomUUID } from "node:crypto";
import {
  type CallerContextClient,
  createCallerContextClient,
  IdentityLevel,
  IntentStatus,
  LineType,
  type Protocol,
  Recommendation,
} from "@caller-context/client";
import { createAccountWithKey } from "caller-context-test-helpers/rest-client.ts";
import { useTestServer } from "caller-context-test-helpers/test-server-fixture.ts";
import { describe, expect, test } from "vitest";

const fixture = useTestServer();
const PROTOCOLS: readonly Protocol[] = ["connect", "grpc"];

function clientFor(protocol: Protocol, apiKey = fixture.apiKey): CallerContextClient {
  return createCallerContextClient({ baseUrl: fixture.server.url, apiKey, protocol });
}

function newNumber(): string {
  return `+1415${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;
}

describe.each(PROTOCOLS)("every method over %s", (protocol) => {
  test("start, end and the next start return the saved intent and variables", async () => {
    const client = clientFor(protocol);
    try {
      const ani = newNumber();
      const first = await client.start({
        callId: `c-${randomUUID()}`,
        identityHints: { ani },
        telco: { lineType: LineType.MOBILE },
      });
      expect(first.identity?.recommendation).toBe(Recommendation.IGNORE);
      const ended = await client.end({
        callId: first.callId,
        customerRef: first.customerRef,
        intent: "billing_question",
        intentStatus: IntentStatus.OPEN,
        variables: { preferred_name: "Ann" },
      });
      expect(ended).toMatchObject({ customerRef: first.customerRef, intentsUpdated: 1, variablesUpdated: 1 });
      const second = await client.start({
        callId: `c-${randomUUID()}`,
        identityHints: { ani },
        telco: { lineType: LineType.MOBILE },
      });
      expect(second.customerRef).toBe(first.customerRef);
      expect(second.identity?.level).toBeGreaterThanOrEqual(IdentityLevel.MEDIUM);
      expect(second.openIntents.map((intent) => intent.intent)).toEqual(["billing_question"]);
      expect(second.variables.preferred_name?.value).toBe("Ann");
    } finally {
      client.close();
    }
  });

  test("identify with verified: true gives confidence 1 and reuse", async () => {
    const client = clientFor(protocol);
    try {
      const crmId = `crm-${randomUUID()}`;
      const known = await client.start({
        callId: `c-${randomUUID()}`,
        identityHints: { externalIds: { crm_id: crmId } },
      });
      await client.end({ callId: known.callId, customerRef: known.customerRef, variables: { tier: "gold" } });
      const call = await client.start({ callId: `c-${randomUUID()}`, identityHints: { ani: newNumber() } });
      const identified = await client.identify({
        callId: call.callId,
        identityHints: { externalIds: { crm_id: crmId } },
        verified: true,
      });
      expect(identified.customerRef).toBe(known.customerRef);
      expect(identified.identity).toMatchObject({ confidence: 1, recommendation: Recommendation.REUSE });
      expect(identified.variables.tier?.value).toBe("gold");
    } finally {
      client.close();
    }
  });

  test("usage reports the key's quota and rate limit and is not billed", async () => {
    const { apiKey, keyId } = await createAccountWithKey(fixture.server.url, { tier: "starter", quota: 500 });
    const client = clientFor(protocol, apiKey);
    try {
      const usage = await client.usage();
      expect(usage).toMatchObject({ tier: "starter", key: { id: keyId, kind: "test" } });
      expect(usage.rateLimit?.limit).toBe(600);
      expect(usage.quota?.remaining).toBe(500);
      expect((await client.usage()).quota?.remaining).toBe(500);
    } finally {
      client.close();
    }
  });

  test("customer records: get, list, merge, unlink and erase", async () => {
    const client = clientFor(protocol);
    try {
      const ani = newNumber();
      const a = await client.start({ callId: `c-${randomUUID()}`, identityHints: { ani } });
      await client.end({ callId: a.callId, customerRef: a.customerRef, variables: { colour: "blue" } });
      const crmId = `crm-${randomUUID()}`;
      const b = await client.start({ callId: `c-${randomUUID()}`, identityHints: { externalIds: { crm_id: crmId } } });
      await client.end({ callId: b.callId, customerRef: b.customerRef });

      const record = await client.customers.get(a.customerRef);
      expect(record.identifiers?.ani).toEqual([ani]);
      expect(record.variables.colour?.value).toBe("blue");
      const listed = await client.customers.list({ externalId: { key: "crm_id", value: crmId } });
      expect(listed.map((customer) => customer.customerRef)).toEqual([b.customerRef]);

      const merged = await client.customers.merge(a.customerRef, b.customerRef);
      expect(merged.identifiers?.externalIds).toEqual([expect.objectContaining({ key: "crm_id", value: crmId })]);
      const unlinked = await client.customers.unlink(a.customerRef, { ani });
      expect(unlinked.identifiers?.ani).toEqual([]);
      expect(await client.customers.list({ ani })).toEqual([]);

      expect((await client.customers.erase(a.customerRef)).erased).toBe(true);
      expect(await client.customers.list({ externalId: { key: "crm_id", value: crmId } })).toEqual([]);
    } finally {
      client.close();
    }
  });

  test("forget-me erases the customer and marks their number until the mark is lifted", async () => {
    const client = clientFor(protocol);
    try {
      const ani = newNumber();
      const a = await client.start({ callId: `c-${randomUUID()}`, identityHints: { ani } });
      await client.end({ callId: a.callId, customerRef: a.customerRef, intent: "setup" });

      const forgotten = await client.customers.forgetMe(a.customerRef);
      expect(forgotten).toMatchObject({ customerRef: a.customerRef, erased: true, identifiersMarked: 1 });
      const again = await client.start({ callId: `c-${randomUUID()}`, identityHints: { ani } });
      expect(again.customerRef).not.toBe(a.customerRef);
      expect(again.openIntents).toEqual([]);

      expect(await client.customers.liftForgetMe({ ani })).toMatchObject({ lifted: true, identifiersUnmarked: 1 });
      expect((await client.customers.liftForgetMe({ ani })).lifted).toBe(false);
    } finally {
      client.close();
    }
  });
});
