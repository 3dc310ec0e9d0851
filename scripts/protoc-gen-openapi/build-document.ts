import { type DescFile, type DescMethod, type DescService, type FileRegistry, getOption } from "@bufbuild/protobuf";
import { getComments } from "@bufbuild/protoplugin";
import { type Access, accessOf, isBilled, isRateLimited, securityOf } from "./access.ts";
import { codeSamplesOf, samplesMarkdown } from "./code-samples.ts";
import { type Schema, SchemaCollector } from "./json-schemas.ts";
import { pathParameters, queryParameters, requestHeaders } from "./parameters.ts";
import { errorResponses, headers, type Operation, securitySchemes } from "./responses.ts";

// The document: one operation per RPC with a route option, its security from
// the access option, its statuses from what the guards and the REST adapter
// answer (src/pipeline/error-response.ts).

/** Services in the order a reader meets them: the calls first, the operator's API last. */
const SERVICE_ORDER = [
  "CallerContextService",
  "CustomerService",
  "IntegrationService",
  "HealthService",
  "AdminService",
];

export function buildDocument(registry: FileRegistry, files: readonly DescFile[]): Schema {
  const routeOption = registry.getExtension("callercontext.v1.route");
  const accessOption = registry.getExtension("callercontext.v1.access");
  const idempotencyOption = registry.getExtension("callercontext.v1.idempotency_key");
  const omitEmptyOption = registry.getExtension("callercontext.v1.omit_empty");
  if (
    routeOption === undefined ||
    accessOption === undefined ||
    idempotencyOption === undefined ||
    omitEmptyOption === undefined
  ) {
    throw new Error(
      "callercontext/v1/options.proto (the route, access, idempotency_key and omit_empty options) must be among the inputs",
    );
  }
  const schemas = new SchemaCollector(omitEmptyOption);
  const paths: Record<string, Record<string, Operation>> = {};
  const tags: Schema[] = [];
  const services = files.flatMap((file) => file.services).sort((a, b) => orderOf(a) - orderOf(b));
  for (const service of services) {
    const routed = service.methods.filter((method) => method.methodKind === "unary" && hasRoute(method));
    if (routed.length === 0) continue;
    tags.push({ name: service.name, description: commentOf(service) });
    for (const method of routed) {
      const route = getOption(method, routeOption) as Route;
      const access = accessOf(getOption(method, accessOption) as number);
      paths[route.path] ??= {};
      for (const httpMethod of [route.method, ...route.additionalMethods]) {
        const suffix = httpMethod === route.method ? "" : httpMethod[0] + httpMethod.slice(1).toLowerCase();
        const headerParameters = requestHeaders(method, idempotencyOption);
        paths[route.path][httpMethod.toLowerCase()] = operation(schemas, method, {
          service,
          route,
          httpMethod,
          access,
          headerParameters,
          operationSuffix: suffix,
        });
      }
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Caller Context",
      version: "v1",
      description:
        "A memory of callers across calls for voice-call systems. The same operations are served over gRPC and Connect on the same port (see the proto files).",
      contact: { name: "Caller Context", url: "https://github.com/caller-context/caller-context" },
    },
    // The server a local `npm start` listens on; a deployment serves the same paths at its own address.
    servers: [{ url: "http://127.0.0.1:8080", description: "A local server (npm start)" }],
    tags,
    paths,
    components: { schemas: { ...schemas.schemas, ...errorSchemas() }, securitySchemes, headers },
  };

  function hasRoute(method: DescMethod): boolean {
    return (getOption(method, routeOption!) as { path: string }).path !== "";
  }
}

interface OperationShape {
  readonly service: DescService;
  readonly route: Route;
  /** The route's method or one of its additional methods. */
  readonly httpMethod: string;
  readonly access: Access;
  readonly headerParameters: readonly Schema[];
  /** Appended to an additional method's operationId, which must be unique. */
  readonly operationSuffix: string;
}

function operation(
  schemas: SchemaCollector,
  method: DescMethod,
  { service, route, httpMethod, access, headerParameters, operationSuffix }: OperationShape,
): Operation {
  // A platform's webhook (route option `body`): the platform's own JSON in, the platform's expected JSON out.
  const raw = route.body !== "";
  const pathFields = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  // GET and DELETE take their fields from the path and the query string (src/http/rest-adapter.ts).
  const fromQuery = httpMethod === "GET" || httpMethod === "DELETE";
  const hasBody = !fromQuery;
  const success: Schema = {
    description: "OK",
    headers: successHeaders(access),
    content: { "application/json": { schema: raw ? PLATFORM_JSON : schemas.ref(method.output, "response") } },
  };
  const parameters = [
    ...pathParameters(method.input, pathFields),
    ...(fromQuery ? (raw ? [PLATFORM_QUERY] : queryParameters(method.input, pathFields)) : []),
    ...headerParameters,
  ];
  const operationId = `${method.localName}${operationSuffix}`;
  const samples = codeSamplesOf(operationId);
  return {
    operationId,
    summary: method.name,
    description:
      samples.length === 0 ? commentOf(method) : `${commentOf(method)}\n\n### Examples\n\n${samplesMarkdown(samples)}`,
    ...(samples.length === 0 ? {} : { "x-codeSamples": samples }),
    tags: [service.name],
    security: securityOf(access),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(hasBody
      ? {
          requestBody: {
            required: true,
            content: raw
              ? {
                  "application/json": { schema: PLATFORM_JSON },
                  "application/x-www-form-urlencoded": { schema: PLATFORM_FORM },
                }
              : { "application/json": { schema: schemas.object(method.input, "request", pathFields) } },
          },
        }
      : {}),
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
        : errorResponses(access, { hasBody, idempotent: headerParameters.length > 0 })),
    },
  };
}

function successHeaders(access: Access): Schema {
  const names = [
    ...(isRateLimited(access) ? ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"] : []),
    ...(isBilled(access) ? ["X-Quota-Remaining"] : []),
  ];
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

function orderOf(service: DescService): number {
  const at = SERVICE_ORDER.indexOf(service.name);
  return at === -1 ? SERVICE_ORDER.length : at;
}

interface Route {
  readonly method: string;
  readonly path: string;
  readonly body: string;
  readonly additionalMethods: readonly string[];
}

const PLATFORM_JSON: Schema = {
  type: "object",
  description: "The voice platform's own JSON (see docs/integrations.md)",
};

const PLATFORM_FORM: Schema = {
  type: "object",
  additionalProperties: { type: "string" },
  description: "A platform's form fields, as Twilio Studio's HTTP Request widget sends them",
};

/** A GET to a webhook carries the platform's fields in the query string, as a form would. */
const PLATFORM_QUERY: Schema = {
  name: "fields",
  in: "query",
  style: "form",
  explode: true,
  schema: PLATFORM_FORM,
};

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
