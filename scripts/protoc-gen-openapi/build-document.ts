import { type DescFile, type DescMethod, type DescService, type FileRegistry, getOption } from "@bufbuild/protobuf";
import { getComments } from "@bufbuild/protoplugin";
import { type Schema, SchemaCollector } from "./json-schemas.ts";
import { errorResponses, headers, type Operation, securitySchemes } from "./responses.ts";

// The document: one operation per RPC with a route option, its security from
// the access option, its statuses from what the guards and the REST adapter
// answer (src/http/error-response.ts).

export type Access = "api_key" | "public" | "admin";

export function buildDocument(registry: FileRegistry, files: readonly DescFile[]): Schema {
  const routeOption = registry.getExtension("callercontext.v1.route");
  const accessOption = registry.getExtension("callercontext.v1.access");
  if (routeOption === undefined || accessOption === undefined) {
    throw new Error("callercontext/v1/options.proto (the route and access options) must be among the inputs");
  }
  const schemas = new SchemaCollector();
  const paths: Record<string, Record<string, Operation>> = {};
  const tags: Schema[] = [];
  for (const service of files.flatMap((file) => file.services)) {
    const routed = service.methods.filter((method) => method.methodKind === "unary" && hasRoute(method));
    if (routed.length === 0) continue;
    tags.push({ name: service.name, description: commentOf(service) });
    for (const method of routed) {
      const route = getOption(method, routeOption) as Route;
      const accessNumber = getOption(method, accessOption) as number;
      const access: Access = accessNumber === 1 ? "public" : accessNumber === 2 ? "admin" : "api_key";
      paths[route.path] ??= {};
      paths[route.path][route.method.toLowerCase()] = operation(schemas, service, method, route, access);
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Caller Context",
      version: "v1",
      description:
        "A memory of callers across calls for voice-call systems. The same operations are served over gRPC and Connect on the same port (see the proto files).",
    },
    tags,
    paths,
    components: { schemas: { ...schemas.schemas, ...errorSchemas() }, securitySchemes, headers },
  };

  function hasRoute(method: DescMethod): boolean {
    return (getOption(method, routeOption!) as { path: string }).path !== "";
  }
}

function operation(
  schemas: SchemaCollector,
  service: DescService,
  method: DescMethod,
  route: Route,
  access: Access,
): Operation {
  // A platform's webhook (route option `body`): the platform's own JSON in, the platform's expected JSON out.
  const raw = route.body !== "";
  const pathFields = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  const guarded = access === "api_key";
  const success: Schema = {
    description: "OK",
    ...(guarded ? { headers: rateLimitHeaders() } : {}),
    content: { "application/json": { schema: raw ? PLATFORM_JSON : schemas.ref(method.output, "response") } },
  };
  return {
    operationId: method.localName,
    summary: method.name,
    description: commentOf(method),
    tags: [service.name],
    // A webhook is verified the platform's way (signature or secret header), never with an API key.
    security: access === "public" || raw ? [] : [{ [access === "admin" ? "adminToken" : "apiKey"]: [] }],
    ...(pathFields.length > 0
      ? {
          parameters: pathFields.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } })),
        }
      : {}),
    ...(route.method === "GET"
      ? {}
      : {
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: raw ? PLATFORM_JSON : schemas.object(method.input, "request", pathFields) },
            },
          },
        }),
    responses: {
      "200": success,
      // A public method (the health check) answers 503 with its own body when the database is away.
      ...(access === "public"
        ? {
            "503": {
              ...success,
              description: "The database does not answer",
              headers: { "Retry-After": { $ref: "#/components/headers/Retry-After" } },
            },
          }
        : errorResponses(access, route.method)),
    },
  };
}

interface Route {
  readonly method: string;
  readonly path: string;
  readonly body: string;
}

const PLATFORM_JSON: Schema = {
  type: "object",
  description: "The voice platform's own JSON (see docs/integrations.md)",
};

function rateLimitHeaders(): Schema {
  return Object.fromEntries(
    ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Quota-Remaining"].map((name) => [
      name,
      { $ref: `#/components/headers/${name}` },
    ]),
  );
}

function errorSchemas(): Record<string, Schema> {
  const base = { error: { type: "string", description: "The HTTP status phrase" }, message: { type: "string" } };
  const object = (properties: Record<string, Schema>, description: string): Schema => ({
    type: "object",
    description,
    properties: { ...base, ...properties },
    required: ["error", "message", ...Object.keys(properties)],
    additionalProperties: false,
  });
  return {
    Error: object({}, "Every error body: the status phrase and a message."),
    ValidationError: object(
      {
        details: {
          type: "object",
          properties: {
            issues: {
              type: "array",
              items: {
                type: "object",
                properties: { path: { type: "array", items: { type: "string" } }, message: { type: "string" } },
                required: ["path", "message"],
                additionalProperties: false,
              },
            },
          },
          required: ["issues"],
          additionalProperties: false,
        },
      },
      "The request is not valid; each issue names the field by its path.",
    ),
    QuotaError: object(
      {
        quota_remaining: { type: "integer", minimum: 0 },
        billing_account_id: { type: "string" },
      },
      "The monthly quota is used up.",
    ),
    RateLimitError: object(
      {
        retryAfter: { type: "integer", description: "Seconds to wait" },
        currentUsage: { type: "integer", description: "Requests in the last 60 seconds" },
        limit: { type: "integer", description: "The tier's limit per minute, without the grace margin" },
        resetAt: { type: ["string", "null"], format: "date-time" },
      },
      "Too many requests in the rolling minute, or too many failed authentications.",
    ),
  };
}

function commentOf(desc: DescService | DescMethod): string | undefined {
  const text = getComments(desc).leading?.trim();
  return text ? text.replace(/\s*\n\s*/g, " ") : undefined;
}
