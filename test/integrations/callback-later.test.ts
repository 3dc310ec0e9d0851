import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, test } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { setQuota } from "../helpers/admin-client.ts";
import { createAccountWithKey, post, request } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";
import { PLATFORM_CASES, type Secrets } from "./platform-case.ts";

// A caller who rings back later, on every platform: the server's clock is
// injected and moved, and each platform's signature is made at the server's
// time, as the platform's would be.

const HOUR_MS = 60 * 60 * 1000;
const clock = createManualClock();
const fixture = useTestServer({ clock });

describe.each(PLATFORM_CASES)("$platform callback later", (platform) => {
  let path: string;
  let secrets: Secrets;

  beforeAll(async () => {
    const { accountId } = await createAccountWithKey(fixture.server.url, { tier: "growth" });
    await setQuota(fixture.server.url, accountId, 100);
    const created = await post(fixture.server.url, `/admin/v1/accounts/${accountId}/integrations`, ADMIN_TOKEN, {
      platform: platform.platform,
      name: `${platform.platform} line`,
      ...platform.create,
    });
    path = created.body.integration.webhook_path;
    secrets = { webhookSecret: created.body.webhook_secret, signingSecret: String(platform.create.signing_secret) };
  });

  const send = (payload: string, kind: "inbound" | "end") =>
    request(fixture.server.url, "POST", path, {
      rawBody: payload,
      headers: platform.headers(payload, secrets, kind, clock.now().getTime()),
    });
  const withCallId = (payload: string, callId: string) =>
    platform.fixtureCallId === undefined ? payload : payload.replaceAll(platform.fixtureCallId, callId);

  test("the same caller 20 hours after a call gets its intent, variables and summary", async () => {
    const callId = `CA${randomUUID().replaceAll("-", "")}`;
    const first = await send(withCallId(platform.inbound, callId), "inbound");
    expect(first.status).toBe(200);
    const end = platform.endPayload?.(platform.end, first.body) ?? withCallId(platform.end, callId);
    expect((await send(end, "end")).body.status).toBe("saved");

    clock.advance(20 * HOUR_MS);
    const later = await send(withCallId(platform.inbound, `CA${randomUUID().replaceAll("-", "")}`), "inbound");
    expect(later.status).toBe(200);
    const variables = platform.variablesOf(later.body);
    expect(variables.customer_ref).toBe(platform.variablesOf(first.body).customer_ref);
    expect(variables.identity_recommendation).not.toBe("ignore");
    expect(variables.open_intents).toBe(`${platform.saved.intent} (1 attempt)`);
    expect(variables[platform.saved.variable]).toBe(platform.saved.value);
    expect(variables.var_call_summary).not.toBe("");
  });
});
