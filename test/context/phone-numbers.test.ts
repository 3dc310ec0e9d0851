import { describe, expect, test } from "vitest";
import { TRANSPORTS } from "../helpers/call-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

const fixture = useTestServer();

describe.each(TRANSPORTS)("caller numbers over %s", (protocol) => {
  const calls = fixture.over(protocol);
  let n = 0;
  const next = () => `${protocol}-phone-${++n}`;

  test("+1 415 number with and without the plus is the same caller", async () => {
    const digits = protocol === "rest" ? "4155550401" : "4155550402";
    const first = await calls.start({ call_id: next(), identity_hints: { ani: `+1${digits}` } });
    const second = await calls.start({
      call_id: next(),
      identity_hints: { ani: `1${digits}` },
      telco: { line_type: "mobile" },
    });
    expect(second.body.customer_ref).toBe(first.body.customer_ref);
    expect(second.body.identity.sources).toEqual(["ani:mobile", "recency:1day"]);
    expect(second.body.identity.confidence).toBe(0.6);
  });

  test("a repeat caller on an unknown line within a day scores 0.4 and is asked to confirm", async () => {
    const ani = protocol === "rest" ? "+14155550403" : "+14155550404";
    await calls.start({ call_id: next(), identity_hints: { ani } });
    const again = await calls.start({ call_id: next(), identity_hints: { ani } });
    expect(again.body.identity).toEqual({
      confidence: 0.4,
      level: "low",
      sources: ["ani:unknown", "recency:1day"],
      recommendation: "confirm",
    });
  });

  test("a landline repeat caller within a day scores 0.4", async () => {
    const ani = protocol === "rest" ? "+14155550405" : "+14155550406";
    await calls.start({ call_id: next(), identity_hints: { ani }, telco: { line_type: "landline" } });
    const again = await calls.start({ call_id: next(), identity_hints: { ani }, telco: { line_type: "landline" } });
    expect(again.body.identity.confidence).toBe(0.4);
    expect(again.body.identity.sources).toEqual(["ani:landline", "recency:1day"]);
  });

  test("a toll-free number is recognised from the number itself", async () => {
    const ani = protocol === "rest" ? "+18005550407" : "+18005550408";
    await calls.start({ call_id: next(), identity_hints: { ani }, telco: { line_type: "mobile" } });
    const again = await calls.start({ call_id: next(), identity_hints: { ani }, telco: { line_type: "mobile" } });
    expect(again.body.identity.sources[0]).toBe("ani:toll_free");
  });

  test("a customer_ref match scores 1.0", async () => {
    const first = await calls.start({ call_id: next(), identity_hints: { external_ids: { id: next() } } });
    const again = await calls.start({ call_id: next(), identity_hints: { customer_ref: first.body.customer_ref } });
    expect(again.body.customer_ref).toBe(first.body.customer_ref);
    expect(again.body.identity).toMatchObject({ confidence: 1, level: "very_high", recommendation: "reuse" });
    expect(again.body.identity.sources[0]).toBe("customer_ref");
  });

  test("hints pointing at different customers: the highest score wins", async () => {
    const ani = protocol === "rest" ? "+14155550409" : "+14155550410";
    const external = { crm: next() };
    const byPhone = await calls.start({ call_id: next(), identity_hints: { ani }, telco: { line_type: "landline" } });
    const byCrm = await calls.start({ call_id: next(), identity_hints: { external_ids: external } });
    expect(byCrm.body.customer_ref).not.toBe(byPhone.body.customer_ref);
    const both = await calls.start({
      call_id: next(),
      identity_hints: { ani, external_ids: external },
      telco: { line_type: "landline" },
    });
    // landline (0.3) + recent (0.1) = 0.4 for the phone's customer; external id (0.4) + recent (0.1) = 0.5 for the CRM's.
    expect(both.body.customer_ref).toBe(byCrm.body.customer_ref);
    expect(both.body.identity.confidence).toBe(0.5);
  });
});
