import { randomUUID } from "node:crypto";
import { createCallerContextClient } from "@caller-context/client";
import type { Interceptor } from "@connectrpc/connect";
import { CallerContextService } from "caller-context-proto/caller_context_pb.ts";
import { CustomerService } from "caller-context-proto/customers_pb.ts";
import { useTestServer } from "caller-context-test-helpers/test-server-fixture.ts";
import { expect, test } from "vitest";

// Every public RPC has a method: the RPCs come from the generated service descriptors (proto/), and each
// method of the client is called once through an interceptor that records which RPC it sent. An RPC added
// to proto/ without a method, or a method left out of the calls below, fails this test.

const fixture = useTestServer();

test("every RPC of CallerContextService and CustomerService has a method in the client", async () => {
  const sent = new Set<string>();
  const record: Interceptor = (next) => (req) => {
    sent.add(`${req.service.typeName}/${req.method.name}`);
    return next(req);
  };
  const client = createCallerContextClient({
    baseUrl: fixture.server.url,
    apiKey: fixture.apiKey,
    interceptors: [record],
  });
  const ref = randomUUID();
  const ani = { ani: "+14155550199" };
  const calls: Record<string, () => Promise<unknown>> = {
    start: () => client.start({ callId: `c-${randomUUID()}`, identityHints: ani }),
    end: () => client.end({ callId: `c-${randomUUID()}`, customerRef: ref }),
    identify: () => client.identify({ callId: `c-${randomUUID()}`, identityHints: ani }),
    usage: () => client.usage(),
    contactFigures: () => client.contactFigures({ from: "2026-11-01", to: "2026-11-30" }),
    contactFiguresCsv: () => client.contactFiguresCsv({ from: "2026-11-01", to: "2026-11-30" }),
    "customers.get": () => client.customers.get(ref),
    "customers.list": () => client.customers.list(ani),
    "customers.erase": () => client.customers.erase(ref),
    "customers.merge": () => client.customers.merge(ref, randomUUID()),
    "customers.unlink": () => client.customers.unlink(ref, ani),
    "customers.forgetMe": () => client.customers.forgetMe(ref),
    "customers.liftForgetMe": () => client.customers.liftForgetMe(ani),
  };
  try {
    const methods = [
      ...Object.entries(client).filter(([name, value]) => typeof value === "function" && name !== "close"),
      ...Object.entries(client.customers).map(([name, value]) => [`customers.${name}`, value] as const),
    ].map(([name]) => name);
    expect(Object.keys(calls).sort()).toEqual(methods.sort());
    // Refusals (404, 409) are fine: the request was sent, which is all this test asks.
    for (const call of Object.values(calls)) await call().catch(() => undefined);
  } finally {
    client.close();
  }
  const rpcs = [CallerContextService, CustomerService].flatMap((service) =>
    service.methods.map((method) => `${service.typeName}/${method.name}`),
  );
  expect(rpcs.length).toBeGreaterThan(10);
  expect([...sent].sort()).toEqual(rpcs.sort());
});
