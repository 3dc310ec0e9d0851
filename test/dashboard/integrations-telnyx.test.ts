import { describe, expect, it } from "vitest";
import { createDashboardClient } from "../helpers/dashboard-client.ts";
import { logMailbox } from "../helpers/mailbox.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";
import { TELNYX_KEYS } from "../integrations/telnyx-signing.ts";

// The Integrations form takes a Telnyx integration with the account's public
// key pasted as Mission Control shows it, and says what is wrong with anything else.

describe("dashboard Telnyx integrations", () => {
  const fixture = useTestServer();

  it("refuses a value that is not Telnyx's public key beside the field, then creates with the key", async () => {
    const client = createDashboardClient(fixture.server.url, { mailbox: logMailbox(fixture.server) });
    await client.signUp("telnyx@example.com", "a password of some length", "Telnyx Co");
    await client.get("/dashboard/integrations");
    const form = { platform: "telnyx", name: "Front desk", kind: "test", variable_fields: "clinic" };

    const refused = await client.submit("/dashboard/integrations", { ...form, signing_secret: "KEY0123_api_key" });
    expect(refused.status).toBe(400);
    expect(refused.html).toMatch(/<p class="field-error">For telnyx: the account(&#39;|')s public key/);
    expect(refused.html).not.toContain("data-integration-id=");

    // Pasted with the spaces a copy often brings along.
    const created = await client.submit("/dashboard/integrations", {
      ...form,
      signing_secret: ` ${TELNYX_KEYS.publicKey} `,
    });
    expect(created.redirectedTo).toBe("/dashboard/integrations");
    expect(created.status).toBe(200);
    expect(created.html).toContain("Integration created: Front desk");
    expect(created.html).toMatch(/<td data-label="Platform">Telnyx<\/td>/);
    expect(created.html).not.toContain(TELNYX_KEYS.publicKey);
  });
});
