import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PLATFORM_EVENTS } from "../../src/cli/simulate/platform-events.ts";
import { integrationRowToIntegration } from "../../src/integrations/integration-rows.ts";
import { isPlatform, PLATFORM_ADAPTERS, PLATFORMS } from "../../src/integrations/platforms/platform-adapters.ts";
import { insertAccount } from "../../src/store/account-repository.ts";
import { insertIntegration } from "../../src/store/integration-repository.ts";
import { type MigratedTestDatabase, openMigratedTestDatabase } from "../helpers/test-database.ts";

// A platform is its adapter and its line in platform-adapters.ts (docs/architecture.md, "A new platform adapter"):
// every list of platforms reads the registry, and the schema names none.

describe("the platform registry", () => {
  test("every registered adapter is a platform the API, the CLI and the simulator list, and none else is", () => {
    const registered = Object.keys(PLATFORM_ADAPTERS);
    expect([...PLATFORMS].sort()).toEqual([...registered].sort());
    expect(Object.keys(PLATFORM_EVENTS)).toEqual([...PLATFORMS]);
    for (const platform of registered) expect(isPlatform(platform), platform).toBe(true);
    expect(isPlatform("toString")).toBe(false);
  });

  test("the five platforms listed before the registry keep their order at the head of the list", () => {
    expect(PLATFORMS.slice(0, 5)).toEqual(["vapi", "retell", "elevenlabs", "twilio_studio", "telnyx"]);
  });

  test("each platform's simulation has an inbound, a message only acknowledged, and an end", () => {
    for (const [platform, events] of Object.entries(PLATFORM_EVENTS)) {
      const kinds = Object.values(events).map((event) => event.kind);
      expect(kinds.sort(), platform).toEqual(["end", "in-call", "inbound"]);
    }
  });
});

describe("the integrations table", () => {
  let store: MigratedTestDatabase;
  beforeAll(async () => {
    store = await openMigratedTestDatabase();
  });
  afterAll(async () => {
    await store.close();
  });

  test("keeps a platform the migrations never named, since the service checks the name on every write", async () => {
    const db = store.database.db;
    const now = new Date();
    await insertAccount(
      db,
      { id: "acct_platforms", name: "Platforms", billing_account_id: "ba_platforms", tier: "growth", created_at: now },
      1000,
    );
    const row = await insertIntegration(db, {
      id: "int_retired",
      account_id: "acct_platforms",
      webhook_id: "wh_retired",
      platform: "no_such_platform",
      name: "Retired",
      kind: "test",
      token_hash: "hash",
      signing_secret: null,
      assistant_id: null,
      intent_field: "intent",
      status_field: "intent_status",
      variable_fields: "[]",
      store_summary: false,
      created_at: now,
    });
    expect(row.platform).toBe("no_such_platform");
    // A row whose platform has no adapter reads as the fallback, as it always has.
    expect(integrationRowToIntegration(row).platform).toBe("twilio_studio");
  });
});
