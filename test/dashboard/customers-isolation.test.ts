import { describe, expect, it } from "vitest";
import { createDashboardClient } from "../helpers/dashboard-client.ts";
import { logMailbox } from "../helpers/mailbox.ts";
import { post } from "../helpers/rest-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// Another account's customer ref or integration id names nothing on these
// pages: every route answers 404 and nothing changes. Test and production
// data are apart within one account too.

describe("dashboard customers and integrations isolation", () => {
  const fixture = useTestServer();
  const signUp = async (email: string) => {
    const client = createDashboardClient(fixture.server.url, { mailbox: logMailbox(fixture.server) });
    const key = await client.signUp(email, "a password of some length", "Isolated Co");
    return { client, key };
  };
  const customerOf = async (key: string, callId: string, crmId: string): Promise<string> => {
    const hints = { ani: "+14155550199", external_ids: { crm_id: crmId } };
    const started = await post(fixture.server.url, "/v1/calls/start", key, { call_id: callId, identity_hints: hints });
    await post(fixture.server.url, "/v1/calls/end", key, { call_id: callId, customer_ref: started.body.customer_ref });
    return started.body.customer_ref;
  };

  it("answers 404 for another account's customer ref on every route and changes nothing", async () => {
    const owner = await signUp("owner@example.com");
    const intruder = await signUp("intruder@example.com");
    const ref = await customerOf(owner.key, "iso-1", "owner-1");
    const ownRef = await customerOf(intruder.key, "iso-2", "intruder-1");

    for (const mode of ["test", "prod"]) {
      expect((await intruder.client.get(`/dashboard/customers/${ref}?mode=${mode}`)).status).toBe(404);
      expect((await intruder.client.get(`/dashboard/customers/${ref}/erase?mode=${mode}`)).status).toBe(404);
    }
    expect((await intruder.client.get(`/dashboard/customers/${ownRef}/merge?mode=test&from=${ref}`)).status).toBe(404);
    for (const q of ["crm_id:owner-1", ref]) {
      const search = await intruder.client.get(`/dashboard/customers?mode=test&q=${q}`);
      expect(search.status).toBe(200);
      expect(search.html).toContain("No customer holds");
    }
    // With a valid token of the intruder's own session.
    expect((await intruder.client.post(`/dashboard/customers/${ref}/erase`, { mode: "test" })).status).toBe(404);
    const unlink = { mode: "test", ani: "+14155550199" };
    expect((await intruder.client.post(`/dashboard/customers/${ref}/unlink`, unlink)).status).toBe(404);
    const merge = { mode: "test", from: ref };
    expect((await intruder.client.post(`/dashboard/customers/${ownRef}/merge`, merge)).status).toBe(404);
    const mergeInto = { mode: "test", from: ownRef };
    expect((await intruder.client.post(`/dashboard/customers/${ref}/merge`, mergeInto)).status).toBe(404);

    // The owner's record is whole; the owner's production data does not hold it.
    const record = await owner.client.get(`/dashboard/customers/${ref}?mode=test`);
    expect(record.status).toBe(200);
    expect(record.html).toContain("+14155550199");
    expect(record.html).toContain("crm_id:owner-1");
    expect((await owner.client.get(`/dashboard/customers/${ref}?mode=prod`)).status).toBe(404);
    expect((await intruder.client.get(`/dashboard/customers/${ownRef}?mode=test`)).html).toContain("crm_id:intruder-1");
  });

  it("refuses an erasure without its CSRF token and a search that is not an identifier", async () => {
    const owner = await signUp("careful@example.com");
    const ref = await customerOf(owner.key, "iso-3", "careful-1");
    await owner.client.get(`/dashboard/customers/${ref}/erase?mode=test`);
    const forged = await owner.client.post(`/dashboard/customers/${ref}/erase`, { mode: "test", _csrf: "forged" });
    expect(forged.status).toBe(403);
    expect((await owner.client.get(`/dashboard/customers/${ref}?mode=test`)).status).toBe(200);
    const bad = await owner.client.get("/dashboard/customers?mode=test&q=crm_id:");
    expect(bad.status).toBe(400);
    expect(bad.html).toContain("Expected key:value");
  });

  it("answers 404 for another account's integration id and leaves it in place", async () => {
    const owner = await signUp("integrator@example.com");
    const intruder = await signUp("prowler@example.com");
    await owner.client.get("/dashboard/integrations");
    const created = await owner.client.submit("/dashboard/integrations", {
      platform: "vapi",
      name: "Inbound",
      kind: "prod",
      assistant_id: "asst_1",
    });
    expect(created.redirectedTo).toBe("/dashboard/integrations");
    expect(created.status).toBe(200);
    const id = /data-integration-id="(int_[0-9A-Za-z]+)"/.exec(created.html)?.[1] ?? "";
    expect(id).not.toBe("");

    await intruder.client.get("/dashboard/integrations");
    expect((await intruder.client.get(`/dashboard/integrations/${id}/delete`)).status).toBe(404);
    expect((await intruder.client.post(`/dashboard/integrations/${id}/delete`, {})).status).toBe(404);
    expect((await intruder.client.get("/dashboard/integrations")).html).not.toContain(id);
    const list = await owner.client.get("/dashboard/integrations");
    expect(list.html).toContain(id);
    expect(list.html).toMatch(/http:\/\/127\.0\.0\.1:\d+\/v1\/integrations\/wh_[0-9A-Za-z]{32}/);
  });
});
