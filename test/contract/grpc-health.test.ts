import { fromBinary, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  Health,
  type HealthCheckResponse,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "../../gen/grpc/health/v1/health_pb.ts";
import { takeDatabaseAway } from "../helpers/database-outage.ts";
import { callUnary, createGrpcClient } from "../helpers/grpc-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// gRPC's standard health protocol, as a Kubernetes probe or Envoy asks it:
// a real @grpc/grpc-js client over h2c, with no credentials.

let server: TestServer;
let client: grpc.Client;

beforeAll(async () => {
  server = await startTestServer();
  client = createGrpcClient(server.url);
});
afterAll(async () => {
  client.close();
  await server.stop();
});

const check = async (service: string) => {
  const result = await callUnary(client, Health.method.check, { service }, {}, { deadlineMs: 5000 });
  return result.error ? result.error.code : result.response?.status;
};

/** Collects a Watch's statuses until `until` holds. */
function watch(service: string, until: (seen: ServingStatus[]) => boolean): Promise<ServingStatus[]> {
  const seen: ServingStatus[] = [];
  const call = client.makeServerStreamRequest(
    `/${Health.typeName}/${Health.method.watch.name}`,
    (message: object) => Buffer.from(toBinary(Health.method.watch.input, message as never)),
    (bytes: Buffer) => fromBinary(Health.method.watch.output, bytes),
    { $typeName: "grpc.health.v1.HealthCheckRequest", service },
  );
  return new Promise((resolve, reject) => {
    call.on("data", (response: HealthCheckResponse) => {
      seen.push(response.status);
      if (until(seen)) {
        call.cancel();
        resolve(seen);
      }
    });
    call.on("error", (error: grpc.ServiceError) => {
      if (error.code !== grpc.status.CANCELLED) reject(error);
    });
  });
}

/**
 * The first check after the database is back. Behind PgBouncer (DATABASE_POOLER set), a database that refused its
 * connections is tried again only after PgBouncer's server_login_retry (15 s by default; docs/operations.md,
 * Poolers), so the check is repeated, once a second, until it answers SERVING or 20 s have passed.
 */
async function servingAgain(): ReturnType<typeof check> {
  const { database } = server.config;
  const behindPooler = database.kind === "postgres" && database.pooler !== "none";
  const startedAt = performance.now();
  let status = await check("");
  while (behindPooler && status !== ServingStatus.SERVING && performance.now() - startedAt < 20_000) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    status = await check("");
  }
  if (behindPooler)
    console.log(`SERVING again ${Math.round(performance.now() - startedAt)} ms after the database was back`);
  return status;
}

describe("grpc.health.v1.Health/Check", () => {
  test("SERVING for the server and each service; NOT_FOUND for an unknown one", async () => {
    expect(await check("")).toBe(ServingStatus.SERVING);
    expect(await check("callercontext.v1.CallerContextService")).toBe(ServingStatus.SERVING);
    expect(await check("callercontext.v1.AdminService")).toBe(ServingStatus.SERVING);
    expect(await check("callercontext.v1.HealthService")).toBe(ServingStatus.SERVING);
    expect(await check("no.such.Service")).toBe(grpc.status.NOT_FOUND);
  });

  test("SERVING, NOT_SERVING while the database is unreachable, then SERVING again; Watch follows", async () => {
    const watched = watch("", (seen) => seen.length === 3);
    expect(await check("callercontext.v1.CallerContextService")).toBe(ServingStatus.SERVING);

    const outage = await takeDatabaseAway(server);
    expect(await check("")).toBe(ServingStatus.NOT_SERVING);
    expect(await check("callercontext.v1.CallerContextService")).toBe(ServingStatus.NOT_SERVING);
    // Watch looks once a second: leave it time to see the outage.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await outage.restore();

    expect(await servingAgain()).toBe(ServingStatus.SERVING);
    expect(await watched).toEqual([ServingStatus.SERVING, ServingStatus.NOT_SERVING, ServingStatus.SERVING]);
  });

  test("Watch of an unknown service answers SERVICE_UNKNOWN and stays open", async () => {
    expect(await watch("no.such.Service", (seen) => seen.length === 1)).toEqual([ServingStatus.SERVICE_UNKNOWN]);
  });
});
