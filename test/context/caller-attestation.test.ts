import { describe, expect, test } from "vitest";
import { TRANSPORTS } from "../helpers/call-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// STIR/SHAKEN over the wire (docs/identity.md, "Caller-number attestation"):
// a start's telco.attestation or telco.verstat changes how far the caller's
// number is trusted; without them the spec's rule holds.

const fixture = useTestServer();

describe.each(TRANSPORTS)("caller-number attestation, over %s", (protocol) => {
  const calls = fixture.over(protocol);
  const prefix = protocol === "rest" ? "+1415555071" : "+1415555072";
  let sequence = 0;

  /** A customer known by a mobile number, who called today and left an open intent. */
  async function knownMobileCaller(): Promise<{ ani: string; customerRef: string }> {
    const ani = `${prefix}${sequence++}`;
    const first = await calls.start({
      call_id: `${protocol}-${ani}-first`,
      identity_hints: { ani },
      telco: { line_type: "mobile" },
    });
    const end = await calls.end({
      call_id: `${protocol}-${ani}-first`,
      customer_ref: first.body.customer_ref,
      intent: "refund",
      intent_status: "open",
    });
    expect(end.status).toBe(200);
    return { ani, customerRef: first.body.customer_ref };
  }

  const startAgain = (ani: string, label: string, telco: object) =>
    calls.start({ call_id: `${protocol}-${ani}-${label}`, identity_hints: { ani }, telco });

  test("failed on a customer's mobile number gives confirm where it gave reuse", async () => {
    const { ani, customerRef } = await knownMobileCaller();
    const plain = await startAgain(ani, "plain", { line_type: "mobile" });
    expect(plain.body.identity).toEqual({
      confidence: 0.7,
      level: "high",
      sources: ["ani:mobile", "recency:1day", "open_intent"],
      recommendation: "reuse",
    });
    const failed = await startAgain(ani, "failed", { line_type: "mobile", attestation: "failed" });
    expect(failed.status).toBe(200);
    expect(failed.body.customer_ref).toBe(customerRef);
    expect(failed.body.identity).toEqual({
      confidence: 0.4,
      level: "low",
      sources: ["ani:mobile", "attestation:failed", "recency:1day", "open_intent"],
      recommendation: "confirm",
    });
    // Confirm shares the context, for the agent to check who is calling.
    expect(failed.body.open_intents).toEqual([expect.objectContaining({ intent: "refund" })]);

    const gateway = await startAgain(ani, "c", { line_type: "mobile", attestation: "C" });
    expect(gateway.body.identity).toMatchObject({ confidence: 0.4, recommendation: "confirm" });
  });

  test("A raises the confidence by 0.1; B and none leave it as without attestation", async () => {
    const { ani } = await knownMobileCaller();
    const attested = await startAgain(ani, "a", { line_type: "mobile", attestation: "A" });
    expect(attested.body.identity).toEqual({
      confidence: 0.8,
      level: "high",
      sources: ["ani:mobile", "attestation:A", "recency:1day", "open_intent"],
      recommendation: "reuse",
    });
    for (const attestation of ["B", "none"]) {
      const res = await startAgain(ani, attestation, { line_type: "mobile", attestation });
      expect(res.body.identity).toEqual({
        confidence: 0.7,
        level: "high",
        sources: ["ani:mobile", `attestation:${attestation}`, "recency:1day", "open_intent"],
        recommendation: "reuse",
      });
    }
    // Without line data, A lifts a same-day caller on a known number from confirm to reuse.
    const unknownLine = await startAgain(ani, "a-unknown", { attestation: "A" });
    expect(unknownLine.body.identity).toMatchObject({ confidence: 0.5, recommendation: "reuse" });
    expect(unknownLine.body.identity.sources.slice(0, 2)).toEqual(["ani:unknown", "attestation:A"]);
  });

  test("a verstat in each platform's form is read into its attestation", async () => {
    const { ani } = await knownMobileCaller();
    const forms: Record<string, string> = {
      "TN-Validation-Passed-A": "A",
      "TN-Validation-Passed-B": "B",
      "TN-Validation-Passed-C": "C",
      "TN-Validation-Failed-B": "failed",
      "TN-Validation-Failed": "failed",
      "No-TN-Validation": "none",
      "TN-Validation-Passed-A-Diverted": "A",
      "TN-Validation-Passed": "A",
      "<sip:+18889809750@sip.telnyx.com;verstat=TN-Validation-Passed-C>": "C",
      B: "B",
      Verified: "A",
      "Not Verified": "C",
      "Not Applicable": "none",
    };
    let n = 0;
    for (const [verstat, attestation] of Object.entries(forms)) {
      const res = await startAgain(ani, `verstat-${n++}`, { line_type: "mobile", verstat });
      expect(res.status, verstat).toBe(200);
      expect(res.body.identity.sources[1], verstat).toBe(`attestation:${attestation}`);
    }
  });

  test("with both fields the one that vouches less counts; an empty verstat is no data", async () => {
    const { ani } = await knownMobileCaller();
    const both = await startAgain(ani, "both", {
      line_type: "mobile",
      attestation: "A",
      verstat: "TN-Validation-Failed",
    });
    expect(both.body.identity).toMatchObject({ confidence: 0.4, recommendation: "confirm" });
    expect(both.body.identity.sources[1]).toBe("attestation:failed");
    const bandwidth = await startAgain(ani, "bandwidth", {
      line_type: "mobile",
      attestation: "B",
      verstat: "TN-Validation-Passed",
    });
    expect(bandwidth.body.identity.sources[1]).toBe("attestation:B");
    const empty = await startAgain(ani, "empty", { line_type: "mobile", verstat: "" });
    expect(empty.status).toBe(200);
    expect(empty.body.identity.sources).toEqual(["ani:mobile", "recency:1day", "open_intent"]);
  });

  test("a new caller with an attestation is still rule 4: confidence 0, no sources", async () => {
    const res = await calls.start({
      call_id: `${protocol}-new-attested`,
      identity_hints: { ani: `${prefix}9` },
      telco: { line_type: "mobile", attestation: "A" },
    });
    expect(res.body.identity).toEqual({ confidence: 0, level: "low", sources: [], recommendation: "ignore" });
  });

  test("an unknown attestation or verstat is a 400 naming the field", async () => {
    const cases: [object, string[]][] = [
      [{ attestation: "D" }, ["telco", "attestation"]],
      [{ attestation: "a" }, ["telco", "attestation"]],
      [{ attestation: "" }, ["telco", "attestation"]],
      [{ verstat: "TN-Validation-Maybe" }, ["telco", "verstat"]],
      [{ verstat: "x".repeat(513) }, ["telco", "verstat"]],
    ];
    for (const [telco, path] of cases) {
      const res = await calls.start({
        call_id: `${protocol}-bad-${JSON.stringify(telco).length}-${path[1]}`,
        identity_hints: { ani: "+14155550799" },
        telco,
      });
      expect(res.status, JSON.stringify(telco)).toBe(400);
      expect(res.body.message).toBe("Validation failed");
      expect(res.body.details.issues).toEqual([{ path, message: expect.any(String) }]);
    }
  });
});

describe("the spec's error shape over REST", () => {
  test("an unknown attestation names the field and the values", async () => {
    const res = await fixture.over("rest").start({
      call_id: "rest-bad-shape",
      identity_hints: { ani: "+14155550798" },
      telco: { attestation: "D" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Bad Request",
      message: "Validation failed",
      details: { issues: [{ path: ["telco", "attestation"], message: "Expected one of: A, B, C, failed, none" }] },
    });
  });
});
