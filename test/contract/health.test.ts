import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { HealthService } from "../../gen/callercontext/v1/health_pb.ts";
import { callUnary, createGrpcClient } from "../helpers/grpc-client.ts";
import { request } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

describe("GET /v1/health", () => {
  test("200 healthy and connected, without authentication", async () => {
    const res = await request(server.url, "GET", "/v1/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: "healthy",
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      database: "connected",
    });
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });

  test("503 unhealthy and disconnected when the database does not answer", async () => {
    await server.context.database.close();
    const res = await request(server.url, "GET", "/v1/health");
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.body).toMatchObject({ status: "unhealthy", database: "disconnected" });

    const client = createGrpcClient(server.url);
    const grpc = await callUnary(client, HealthService.method.check, {});
    client.close();
    expect(grpc.response?.database).toBe("disconnected");
  });
});
