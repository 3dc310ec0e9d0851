import { randomUUID } from "node:crypto";
import { getOption, hasOption } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { describe, expect, test } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { CustomerService } from "../../gen/callercontext/v1/customers_pb.ts";
import { route as routeOption } from "../../gen/callercontext/v1/options_pb.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// Every authenticated answer carries the limit headers (X-RateLimit-Limit, -Remaining, -Reset and
// X-Quota-Remaining), on every public RPC and over REST, Connect and gRPC alike: a success, a refusal of the
// body (400) and a customer not found (404). The RPCs come from the service descriptors (proto/), so an RPC
// added later is checked without a change here.

const fixture = useTestServer();
const LIMIT_HEADERS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "x-quota-remaining"];

const methods = [CallerContextService, CustomerService].flatMap((service) =>
  service.methods.map((method) => ({ service, method, name: `${service.name}/${method.name}` })),
);

/** The REST request of a method with an unknown customer_ref in its path and an empty body or query. */
function restRequest(method: (typeof methods)[number]["method"]) {
  const { method: httpMethod, path } = getOption(method, routeOption);
  return { httpMethod, path: path.replace("{customer_ref}", randomUUID()) };
}

const plain = (metadata: grpc.Metadata) =>
  Object.fromEntries(Object.entries(metadata.getMap()).map(([name, value]) => [name, String(value)]));

function grpcHeaders(path: string, key: string): Promise<{ code: grpc.status; headers: Record<string, string> }> {
  const address = new URL(fixture.server.url).host;
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${key}`);
  return new Promise((resolve) => {
    let headers: Record<string, string> = {};
    const call = client.makeUnaryRequest(
      path,
      (bytes: Buffer) => bytes,
      (bytes: Buffer) => bytes,
      Buffer.alloc(0),
      metadata,
      { deadline: Date.now() + 10_000 },
      (error) => {
        client.close();
        // An error is sent Trailers-Only (docs/api.md): its headers arrive with its status.
        if (error) headers = { ...headers, ...plain(error.metadata) };
        resolve({ code: error ? error.code : grpc.status.OK, headers });
      },
    );
    call.on("metadata", (received: grpc.Metadata) => {
      headers = plain(received);
    });
  });
}

describe("the limit headers on every authenticated answer", () => {
  test("the public RPCs all have REST routes", () => {
    expect(methods.length).toBeGreaterThanOrEqual(11);
    expect(methods.filter(({ method }) => !hasOption(method, routeOption)).map(({ name }) => name)).toEqual([]);
  });

  test.each(methods)("$name over REST", async ({ method }) => {
    const { httpMethod, path } = restRequest(method);
    const response = await fetch(new URL(path, fixture.server.url), {
      method: httpMethod,
      headers: {
        authorization: `Bearer ${fixture.apiKey}`,
        ...(httpMethod === "POST" ? { "content-type": "application/json" } : {}),
      },
      ...(httpMethod === "POST" ? { body: "{}" } : {}),
    });
    expect([200, 400, 404]).toContain(response.status);
    for (const header of LIMIT_HEADERS)
      expect(response.headers.get(header), `${header} (${response.status})`).toMatch(/^\d+$/);
  });

  test.each(methods)("$name over Connect", async ({ service, method }) => {
    const response = await fetch(new URL(`/${service.typeName}/${method.name}`, fixture.server.url), {
      method: "POST",
      headers: { authorization: `Bearer ${fixture.apiKey}`, "content-type": "application/json" },
      body: "{}",
    });
    expect([200, 400, 404]).toContain(response.status);
    for (const header of LIMIT_HEADERS)
      expect(response.headers.get(header), `${header} (${response.status})`).toMatch(/^\d+$/);
  });

  test.each(methods)("$name over gRPC", async ({ service, method }) => {
    const answer = await grpcHeaders(`/${service.typeName}/${method.name}`, fixture.apiKey);
    expect([grpc.status.OK, grpc.status.INVALID_ARGUMENT, grpc.status.NOT_FOUND]).toContain(answer.code);
    for (const header of LIMIT_HEADERS)
      expect(answer.headers[header], `${header} (code ${answer.code})`).toMatch(/^\d+$/);
  });
});
