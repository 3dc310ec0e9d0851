import { type DescMethodUnary, getOption } from "@bufbuild/protobuf";
import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AdminService } from "../../gen/callercontext/v1/admin_pb.ts";
import { route } from "../../gen/callercontext/v1/options_pb.ts";
import { createEventEndpoint } from "../helpers/event-endpoints.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { createRpcClient, type RpcClient } from "../helpers/rpc-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// One 400 names every offending field of an admin request too: what the JSON could not be decoded into (a wrong
// type, an unknown field) together with what the method's own rules refuse (a missing name, a tier outside the
// set, a quota out of range), over REST and Connect JSON. gRPC's binary messages decode whole, so there every
// rule a message breaks is named in one INVALID_ARGUMENT. A refused request changes nothing.
//
// One case per method of AdminService, read from the proto: a new admin method without its case fails here.

const fixture = useTestServer();
let rpc: RpcClient;
const ids = { account_id: "", key_id: "key_missing", integration_id: "int_missing", delivery_id: "dl_missing" } as {
  [name: string]: string;
};

beforeAll(async () => {
  rpc = createRpcClient(fixture.server.url);
  const created = await createAccountWithKey(fixture.server.url);
  ids.account_id = created.accountId;
  ids.key_id = created.keyId;
  const endpoint = await createEventEndpoint(fixture.server.url, created.accountId, {
    url: "http://127.0.0.1:9/events",
    event_types: ["call.ended"],
  });
  ids.endpoint_id = endpoint.endpointId;
});
afterAll(() => rpc?.close());

interface RuleCase {
  /** The fields as REST and Connect JSON take them (proto names), path fields aside: decode and rule issues. */
  readonly sent: Record<string, unknown>;
  /** Every issue of the one 400, "path: message", in order: the decode issues first, then the rules'. */
  readonly named: readonly string[];
  /** Over gRPC: fields breaking every rule they can at once, and the paths named. */
  readonly grpc: { readonly sent: Record<string, unknown>; readonly named: readonly string[] };
}

interface NoRuleCase {
  /** Why the method has no rule of its own: only its decode issues can offend, all named by the host. */
  readonly noRules: string;
}

const TWO_UNKNOWN = { colour: "blue", shade: 2 };
const TWO_UNKNOWN_NAMED = ["colour: Unknown field", "shade: Unknown field"];
const onlyIds = (what: string): NoRuleCase => ({ noRules: `takes ${what} alone` });

const CASES: Record<string, RuleCase | NoRuleCase> = {
  createAccount: {
    // null is "not given" (proto3 JSON): a required name sent as null is missing.
    sent: { name: null, tier: "platinum", quota: "lots" },
    named: [
      "quota: Expected a non-negative integer",
      "name: Required",
      "tier: Expected one of: free, starter, growth, scale",
    ],
    grpc: { sent: { name: "", tier: "platinum", quota: 3_000_000_000 }, named: ["name", "quota", "tier"] },
  },
  getAccount: onlyIds("the account_id in its path"),
  setAccountQuota: {
    sent: { quota_remaining: 3_000_000_000, colour: "blue" },
    named: ["colour: Unknown field", "quota_remaining: Must be an integer from 0 to 2147483647"],
    grpc: { sent: { quota_remaining: 3_000_000_000 }, named: ["quota_remaining"] },
  },
  setAccountTier: {
    sent: { tier: "platinum", colour: "blue" },
    named: ["colour: Unknown field", "tier: Expected one of: free, starter, growth, scale"],
    grpc: { sent: { tier: "platinum" }, named: ["tier"] },
  },
  setAccountRetention: {
    sent: { context_retention_days: 400, colour: "blue" },
    named: ["colour: Unknown field", "context_retention_days: Must be an integer from 7 to 365"],
    grpc: { sent: { context_retention_days: 400 }, named: ["context_retention_days"] },
  },
  setAccountRepeatWindow: {
    sent: { repeat_window_days: 0, colour: "blue" },
    named: ["colour: Unknown field", "repeat_window_days: Must be an integer from 1 to 30"],
    grpc: { sent: {}, named: ["repeat_window_days"] },
  },
  getAccountContactFigures: {
    sent: { mode: "staging", from: "2026-13-01", colour: "blue" },
    named: [
      "colour: Unknown field",
      "mode: Must be one of: test, prod",
      "from: Must be a UTC day, YYYY-MM-DD",
      "to: Required",
    ],
    grpc: { sent: { mode: "staging", from: "2026-13-01" }, named: ["mode", "from", "to"] },
  },
  createKey: {
    sent: { kind: "live", colour: "blue" },
    named: ["colour: Unknown field", "kind: Expected one of: test, prod"],
    grpc: { sent: { kind: "live" }, named: ["kind"] },
  },
  listKeys: onlyIds("the account_id in its path"),
  revokeKey: onlyIds("the key_id in its path"),
  createIntegration: {
    sent: { platform: "skype", name: 5, kind: "live" },
    // The name dropped as undecodable is not named again as missing.
    named: [
      "name: Expected a string",
      "platform: Expected one of: vapi, retell, elevenlabs, twilio_studio, telnyx",
      "kind: Expected one of: test, prod",
    ],
    grpc: { sent: { platform: "vapi", name: "", kind: "live" }, named: ["name", "assistant_id", "kind"] },
  },
  listIntegrations: onlyIds("the account_id in its path"),
  deleteIntegration: onlyIds("the integration_id in its path"),
  createSignupInvite: { noRules: "takes no field" },
  backupDatabase: { noRules: "takes no field" },
  createEventEndpoint: {
    sent: { url: "not a url", event_types: "call.ended", kind: "live" },
    // The event types dropped as undecodable are not named again as none chosen.
    named: [
      "event_types: Expected an array",
      "kind: Expected one of: test, prod",
      "url: Must be an absolute http(s) URL",
    ],
    grpc: {
      sent: { url: "not a url", event_types: ["call.nope"], kind: "live" },
      named: ["kind", "event_types.0", "url"],
    },
  },
  listEventEndpoints: onlyIds("the account_id in its path"),
  setEventEndpointEnabled: { noRules: "takes its endpoint_id and a flag any value of which is allowed" },
  rollEventEndpointSecret: {
    sent: { grace: "2d", colour: "blue" },
    named: ["colour: Unknown field", "grace: Expected one of: now, 1h, 24h, 7d"],
    grpc: { sent: { grace: "2d" }, named: ["grace"] },
  },
  deleteEventEndpoint: onlyIds("the endpoint_id in its path"),
  sendTestEvent: onlyIds("the endpoint_id in its path"),
  listEventDeliveries: onlyIds("the endpoint_id in its path"),
  redeliverEvent: onlyIds("the delivery_id in its path"),
};

const METHODS = AdminService.methods as DescMethodUnary[];
const hasRules = (c: RuleCase | NoRuleCase): c is RuleCase => "sent" in c;
const ruled = METHODS.filter((method) => hasRules(CASES[method.localName]));

/** The method's path fields with the ids this file made (or ids naming nothing: the 400 comes first). */
function withIds(method: DescMethodUnary, fields: Record<string, unknown>): Record<string, unknown> {
  const path = getOption(method, route).path;
  const named = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name, ids[name]]);
  return { ...Object.fromEntries(named), ...fields };
}

const issuesOf = (body: { details?: { issues?: { path: string[]; message: string }[] } }) =>
  body.details?.issues?.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
const pathsOf = (issues: readonly string[] | undefined) => issues?.map((issue) => issue.split(": ")[0]);

async function connect(method: DescMethodUnary, fields: Record<string, unknown>) {
  const response = await fetch(new URL(`/${AdminService.typeName}/${method.name}`, fixture.server.url), {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(fields),
  });
  const answer = await response.json();
  const issues: string[] | undefined = answer.details?.[0]?.debug?.issues?.map(
    (issue: { path?: string[]; message: string }) => `${(issue.path ?? []).join(".")}: ${issue.message}`,
  );
  return { status: response.status, code: answer.code as string, issues };
}

/** What an operator could change through the admin API: a refused request leaves it as it was. */
async function snapshot() {
  const { db } = fixture.server.context.database;
  const all = (table: "accounts" | "api_keys" | "integrations" | "event_endpoints" | "invites") =>
    db.selectFrom(table).selectAll().execute();
  return Promise.all([all("accounts"), all("api_keys"), all("integrations"), all("event_endpoints"), all("invites")]);
}

test("every method of AdminService has its case", () => {
  expect(Object.keys(CASES).sort()).toEqual(METHODS.map((method) => method.localName).sort());
});

describe("REST: what could not be decoded and what the rules refuse, in one 400", () => {
  test.each(ruled.map((method) => [method.name, method] as const))("%s", async (_, method) => {
    const { sent, named } = CASES[method.localName] as RuleCase;
    const before = await snapshot();
    const refused = await rpc.call("rest", method, ADMIN_TOKEN, withIds(method, sent));
    expect(refused.status).toBe(400);
    expect(issuesOf(refused.body)).toEqual(named);
    expect(await snapshot()).toEqual(before);
  });
});

describe("Connect JSON: the same issues in one invalid_argument", () => {
  test.each(ruled.map((method) => [method.name, method] as const))("%s", async (_, method) => {
    const { sent, named } = CASES[method.localName] as RuleCase;
    const before = await snapshot();
    const refused = await connect(method, withIds(method, sent));
    expect([refused.status, refused.code]).toEqual([400, "invalid_argument"]);
    // The enum and number messages are protobuf JSON's; the fields named are the same.
    expect(pathsOf(refused.issues)).toEqual(pathsOf(named));
    expect(await snapshot()).toEqual(before);
  });
});

describe("gRPC: every rule a decoded message breaks, in one INVALID_ARGUMENT", () => {
  test.each(ruled.map((method) => [method.name, method] as const))("%s", async (_, method) => {
    const { grpc } = CASES[method.localName] as RuleCase;
    const before = await snapshot();
    const refused = await rpc.call("grpc", method, ADMIN_TOKEN, withIds(method, grpc.sent));
    expect(refused.grpcError?.code).toBe(status.INVALID_ARGUMENT);
    expect(pathsOf(issuesOf(refused.body))).toEqual(grpc.named);
    expect(await snapshot()).toEqual(before);
  });
});

describe("methods with no rule of their own: every field the host cannot take, in one 400", () => {
  const unruled = METHODS.filter((method) => !hasRules(CASES[method.localName]));
  test.each(unruled.map((method) => [method.name, method] as const))("%s over REST and Connect", async (_, method) => {
    const before = await snapshot();
    const rest = await rpc.call("rest", method, ADMIN_TOKEN, withIds(method, TWO_UNKNOWN));
    expect([rest.status, issuesOf(rest.body)]).toEqual([400, TWO_UNKNOWN_NAMED]);
    const viaConnect = await connect(method, withIds(method, TWO_UNKNOWN));
    expect([viaConnect.status, viaConnect.issues]).toEqual([400, TWO_UNKNOWN_NAMED]);
    expect(await snapshot()).toEqual(before);
  });
});
