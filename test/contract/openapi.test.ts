import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AdminService } from "../../gen/callercontext/v1/admin_pb.ts";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { CustomerService } from "../../gen/callercontext/v1/customers_pb.ts";
import { HealthService } from "../../gen/callercontext/v1/health_pb.ts";
import { IntegrationService } from "../../gen/callercontext/v1/integrations_pb.ts";
import { openApiDocument } from "../helpers/openapi-contract.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

describe("the OpenAPI document (gen/openapi.json)", () => {
  test("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(structuredClone(openApiDocument));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(openApiDocument.openapi).toBe("3.1.0");
  });

  test("has an operation for every REST route, secured as the access option says", () => {
    const operations = Object.entries(openApiDocument.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, { operationId: string; security: object[] }>).map(
        ([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, ...operation }),
      ),
    );
    const methodCount = [CallerContextService, HealthService, AdminService, CustomerService, IntegrationService].reduce(
      (n, s) => n + s.methods.length,
      0,
    );
    // The webhook also answers GET (route option additional_methods): one more operation.
    expect(operations).toHaveLength(methodCount + 1);
    expect(operations.map((operation) => operation.route)).toContain("GET /v1/integrations/{webhook_id}");
    const byRoute = Object.fromEntries(operations.map((operation) => [operation.route, operation.security]));
    expect(byRoute["POST /v1/calls/start"]).toEqual([{ apiKey: [] }]);
    expect(byRoute["GET /v1/health"]).toEqual([]);
    expect(byRoute["POST /admin/v1/keys/{key_id}/revoke"]).toEqual([{ adminToken: [] }]);
    // A platform's webhook is verified the platform's way, never with an API key.
    expect(byRoute["POST /v1/integrations/{webhook_id}"]).toEqual([]);
  });

  test("describes the contract's JSON: snake_case, short enum names, null for an unset source", () => {
    const { schemas } = openApiDocument.components;
    const specFields = ["call_id", "customer_ref", "call_start", "identity", "open_intents", "variables"];
    // The specification's fields, always present; the service's additions (omit_empty) only when not empty.
    expect(schemas.StartCallResponse.required).toEqual(specFields);
    expect(Object.keys(schemas.StartCallResponse.properties)).toEqual([
      ...specFields,
      "recent_calls",
      "held_back_variables",
    ]);
    expect(schemas.StartCallResponse.properties.call_start).toEqual({ type: ["string", "null"], format: "date-time" });
    const lineType = schemas.TelcoInput.properties.line_type;
    expect(lineType.enum).toEqual(["mobile", "landline", "voip", "unknown", null]);
    expect(schemas.Variable.properties.source.type).toEqual(["string", "null"]);
  });

  test("lists every error status with its body and the rate-limit headers", () => {
    const start = openApiDocument.paths["/v1/calls/start"].post;
    expect(Object.keys(start.responses)).toEqual(
      expect.arrayContaining(["200", "400", "401", "402", "409", "429", "500", "503", "default"]),
    );
    expect(start.responses["429"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/RateLimitError",
    });
    expect(Object.keys(start.responses["200"].headers)).toEqual([
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
      "X-Quota-Remaining",
    ]);
  });
});

describe("GET /v1/openapi.json and /docs", () => {
  test("the document is served without authentication, as committed", async () => {
    const res = await fetch(`${server.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(openApiDocument);
  });

  test("/docs opens on the public API: the public services' tags and paths come first, Admin's last", async () => {
    // Swagger UI lays the groups out in the order of the document's tags, then of its paths.
    const served = await (await fetch(`${server.url}/v1/openapi.json`)).json();
    expect(served.tags.map((tag: { name: string }) => tag.name)).toEqual([
      "CallerContextService",
      "CustomerService",
      "IntegrationService",
      "HealthService",
      "AdminService",
    ]);
    const paths = Object.keys(served.paths);
    const firstAdmin = paths.findIndex((path) => path.startsWith("/admin/"));
    expect(paths[0]).toBe("/v1/calls/start");
    expect(paths.slice(firstAdmin).every((path) => path.startsWith("/admin/"))).toBe(true);
  });

  test("/docs is a reference page whose assets this server serves itself", async () => {
    const page = await fetch(`${server.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    // The page's one script of its own is a file (its policy allows no inline script).
    expect(await (await fetch(`${server.url}/docs/reference.js`)).text()).toContain("/v1/openapi.json");
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets.every((asset) => asset.startsWith("/docs/"))).toBe(true);
    for (const asset of assets) expect((await fetch(`${server.url}${asset}`)).status).toBe(200);
    expect((await fetch(`${server.url}/docs/package.json`)).status).toBe(404);
  });
});
