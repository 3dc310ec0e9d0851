import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, test } from "vitest";
import { createEndpoint } from "../../src/events/create-endpoint.ts";
import { postEvent } from "../../src/events/post-event.ts";
import { eventDepsOf } from "../../src/use-case-deps.ts";
import { createAccountWithKey, post, request } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// Endpoints through the admin API: what may be created, and the outbound
// request's own checks, which hold on every delivery. What a host name
// resolves to when the endpoint is created is also checked through the use
// case given a resolver of the test's, the one dependency the wire cannot set.

const fixture = useTestServer();

const create = async (body: object) => {
  const { accountId } = await createAccountWithKey(fixture.server.url);
  return post(fixture.server.url, `/admin/v1/accounts/${accountId}/event-endpoints`, ADMIN_TOKEN, body);
};

describe("creating an endpoint: 400", () => {
  test.each([
    ["a private address", "https://10.1.2.3/hook", "10.1.2.3 is a private address"],
    ["a loopback address", "https://127.0.0.1/hook", "127.0.0.1 is a loopback address"],
    [
      "a link-local address (cloud metadata)",
      "https://169.254.169.254/latest",
      "169.254.169.254 is a linkLocal address",
    ],
    ["an IPv6 loopback", "https://[::1]/hook", "::1 is a loopback address"],
    ["an IPv4-mapped private address", "https://[::ffff:192.168.0.1]/hook", "::ffff:c0a8:1 is a private address"],
    ["localhost", "https://localhost:8443/hook", "localhost is a loopback address"],
    ["plain http", "http://example.com/hook", "Must use https for production data"],
  ])("production data, %s, is refused with the reason", async (_, url, reason) => {
    const res = await create({ url, kind: "prod", event_types: ["call.ended"] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Bad Request");
    expect(res.body.details.issues).toEqual([{ path: ["url"], message: expect.stringContaining(reason) }]);
  });

  test("an unknown event type and no event type are refused", async () => {
    const unknown = await create({ url: "http://127.0.0.1:9/x", event_types: ["call.started"] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details.issues[0].path).toEqual(["event_types", "0"]);
    const none = await create({ url: "http://127.0.0.1:9/x", event_types: [] });
    expect(none.status).toBe(400);
    expect(none.body.details.issues[0].path).toEqual(["event_types"]);
  });

  test("a URL that is not one is refused", async () => {
    const res = await create({ url: "not a url", event_types: ["call.ended"] });
    expect(res.status).toBe(400);
  });
});

describe("creating an endpoint named by a host name: what the name resolves to is checked", () => {
  test("production data to localhost. (a trailing dot, which the check by name does not catch) is refused", async () => {
    // The system's resolver answers loopback for it, or nothing: either way, refused.
    const res = await create({ url: "https://localhost./hook", kind: "prod", event_types: ["call.ended"] });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([
      {
        path: ["url"],
        message: expect.stringMatching(
          /^Refused: localhost\. (does not resolve|resolves to \S+ is a loopback address)$/,
        ),
      },
    ]);
  });

  // The use case with the resolver it is given in place of the system's DNS, so the answer is the test's.
  const createResolvingTo = async (addresses: readonly string[] | Error) => {
    const { accountId } = await createAccountWithKey(fixture.server.url);
    const resolveHost = async (host: string) => {
      expect(host).toBe("hooks.example.com");
      if (addresses instanceof Error) throw addresses;
      return addresses;
    };
    return createEndpoint(
      { ...eventDepsOf(fixture.server.context), resolveHost },
      {
        accountId,
        url: "https://hooks.example.com/events",
        kind: "prod",
        eventTypes: ["call.ended"],
        includeVariableValues: false,
      },
    );
  };

  test("production data to a name resolving to a private address, among public ones, is refused", async () => {
    await expect(createResolvingTo(["93.184.215.14", "10.0.0.1"])).rejects.toMatchObject({
      code: "invalid_argument",
      issues: [{ path: ["url"], message: "Refused: hooks.example.com resolves to 10.0.0.1 is a private address" }],
    });
  });

  test("production data to a name that does not resolve is refused", async () => {
    await expect(createResolvingTo(new Error("ENOTFOUND"))).rejects.toMatchObject({
      issues: [{ path: ["url"], message: "Refused: hooks.example.com does not resolve" }],
    });
  });

  test("production data to a name resolving to public addresses only is accepted", async () => {
    const created = await createResolvingTo(["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]);
    expect(created.endpoint).toMatchObject({ kind: "prod", url: "https://hooks.example.com/events", enabled: true });
  });
});

describe("creating an endpoint: 200", () => {
  test("test data may go to a loopback http receiver; the secret is shown once, never listed", async () => {
    const { accountId } = await createAccountWithKey(fixture.server.url);
    const res = await post(fixture.server.url, `/admin/v1/accounts/${accountId}/event-endpoints`, ADMIN_TOKEN, {
      url: "http://127.0.0.1:9/hook",
      event_types: ["intent.opened", "intent.opened"],
    });
    expect(res.status).toBe(200);
    expect(res.body.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/=]{44}$/);
    expect(res.body.endpoint).toMatchObject({ kind: "test", enabled: true, event_types: ["intent.opened"] });
    const listed = await request(fixture.server.url, "GET", `/admin/v1/accounts/${accountId}/event-endpoints`, {
      token: ADMIN_TOKEN,
    });
    expect(JSON.stringify(listed.body)).not.toContain(res.body.signing_secret);
  });

  test("an endpoint can be disabled, enabled, rolled and deleted", async () => {
    const { accountId } = await createAccountWithKey(fixture.server.url);
    const created = await post(fixture.server.url, `/admin/v1/accounts/${accountId}/event-endpoints`, ADMIN_TOKEN, {
      url: "http://127.0.0.1:9/hook",
      event_types: ["call.ended"],
    });
    const id = created.body.endpoint.endpoint_id;
    const off = await post(fixture.server.url, `/admin/v1/event-endpoints/${id}/enabled`, ADMIN_TOKEN, {
      enabled: false,
    });
    expect(off.body.endpoint).toMatchObject({ enabled: false, disabled_reason: "Disabled by hand" });
    const on = await post(fixture.server.url, `/admin/v1/event-endpoints/${id}/enabled`, ADMIN_TOKEN, {
      enabled: true,
    });
    expect(on.body.endpoint.enabled).toBe(true);
    const rolled = await post(fixture.server.url, `/admin/v1/event-endpoints/${id}/roll-secret`, ADMIN_TOKEN, {
      grace: "1h",
    });
    expect(rolled.status).toBe(200);
    expect(rolled.body.signing_secret).not.toBe(created.body.signing_secret);
    // Stored sealed, both the new secret and the old one that still signs during the grace.
    const stored = await fixture.server.context.database.db
      .selectFrom("event_endpoints")
      .select(["secret", "previous_secret"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(stored.secret).toMatch(/^enc:v1:/);
    expect(stored.previous_secret).toMatch(/^enc:v1:/);
    const text = JSON.stringify(stored);
    expect(text).not.toContain(rolled.body.signing_secret.slice("whsec_".length));
    expect(text).not.toContain(created.body.signing_secret.slice("whsec_".length));
    const deleted = await post(fixture.server.url, `/admin/v1/event-endpoints/${id}/delete`, ADMIN_TOKEN, {});
    expect(deleted.body.deleted).toBe(true);
    const gone = await post(fixture.server.url, `/admin/v1/event-endpoints/${id}/delete`, ADMIN_TOKEN, {});
    expect(gone.status).toBe(404);
  });
});

describe("every delivery checks where it connects", () => {
  test("a production delivery to a name resolving to loopback is refused before connecting", async () => {
    let connections = 0;
    const server = createServer((_, res) => res.end()).listen(0, "127.0.0.1");
    server.on("connection", () => connections++);
    await new Promise((resolve) => server.once("listening", resolve));
    const { port } = server.address() as AddressInfo;
    const outcome = await postEvent(`http://localhost:${port}/hook`, {}, "{}", {
      kind: "prod",
      timeoutMs: 2000,
      maxResponseBytes: 1024,
    });
    expect(outcome).toMatchObject({ ok: false, status: null, error: expect.stringContaining("loopback") });
    const literal = await postEvent(`http://127.0.0.1:${port}/hook`, {}, "{}", {
      kind: "prod",
      timeoutMs: 2000,
      maxResponseBytes: 1024,
    });
    expect(literal).toMatchObject({ ok: false, error: expect.stringContaining("loopback") });
    expect(connections).toBe(0);
    server.close();
  });

  test("a redirect is not followed, and a large answer is cut at the cap", async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? "");
      if (req.url === "/moved") return res.writeHead(307, { location: "/elsewhere" }).end();
      res.writeHead(200);
      res.end("x".repeat(1_000_000));
    }).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const { port } = server.address() as AddressInfo;
    const options = { kind: "test" as const, timeoutMs: 5000, maxResponseBytes: 1024 };
    const moved = await postEvent(`http://127.0.0.1:${port}/moved`, {}, "{}", options);
    expect(moved).toEqual({ ok: false, status: 307, error: "HTTP 307" });
    const large = await postEvent(`http://127.0.0.1:${port}/large`, {}, "{}", options);
    expect(large).toEqual({ ok: true, status: 200 });
    expect(seen).toEqual(["/moved", "/large"]);
    server.closeAllConnections();
    server.close();
  });

  test("a receiver that never answers times out", async () => {
    const server = createServer(() => {}).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const { port } = server.address() as AddressInfo;
    const outcome = await postEvent(`http://127.0.0.1:${port}/`, {}, "{}", {
      kind: "test",
      timeoutMs: 200,
      maxResponseBytes: 1024,
    });
    expect(outcome).toEqual({ ok: false, status: null, error: "timed out" });
    server.closeAllConnections();
    server.close();
  });
});
