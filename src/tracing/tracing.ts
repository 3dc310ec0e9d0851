import { AsyncLocalStorage } from "node:async_hooks";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import {
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import {
  defaultResource,
  detectResources,
  resourceAttributesEnvDetector,
  resourceFromAttributes,
  serviceNameEnvDetector,
} from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { LogEvent } from "kysely";
import { errorResponse } from "../pipeline/error-response.ts";
import { type RequestScope, requestScopeKey } from "../pipeline/request-scope.ts";
import { summarizeStatement } from "./statement-summary.ts";

// Opt-in tracing (OTEL_EXPORTER_OTLP_ENDPOINT): one server span per API call
// over every protocol, continuing the caller's W3C traceparent, with a child
// span per database statement, exported over OTLP/HTTP. This module is only
// loaded when tracing is on, so it costs nothing when off.
//
// Names and attributes follow OpenTelemetry's semantic conventions: a REST
// call is an HTTP server span ("POST /v1/calls/start", http.request.method,
// http.route, http.response.status_code), a Connect or gRPC call an RPC span
// (rpc.system connect_rpc or grpc, rpc.service, rpc.method, and
// rpc.connect_rpc.error_code or rpc.grpc.status_code), a statement a database
// client span ("insert calls", db.operation.name, db.collection.name). A
// server span is an error only for what the conventions count as the server's
// fault: a 5xx, or an RPC code such as internal or unavailable; a 4xx or a
// not_found leaves it unset.
//
// The resource is the SDK's: its own attributes (telemetry.sdk.*), then
// service.name "caller-context", then what its detectors read from
// OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME (the latter winning), as an
// SDK does in every language. The SDK reads those two itself, as the exporter
// reads its OTEL_EXPORTER_OTLP_* settings: config.ts leaves OpenTelemetry's
// variables, the endpoint aside, to OpenTelemetry.

export interface TracingOptions {
  /** The collector's base URL; spans go to <endpoint>/v1/traces. */
  readonly endpoint: string;
}

export interface Tracing {
  readonly interceptor: Interceptor;
  /** Kysely's log hook: a span for each statement, under the call that ran it. */
  readonly onQuery: (event: LogEvent) => void;
  /** Sends what is still buffered. */
  shutdown(): Promise<void>;
}

const headerGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

export function createTracing(options: TracingOptions): Tracing {
  const provider = new TracerProvider({
    resource: defaultResource()
      .merge(resourceFromAttributes({ "service.name": "caller-context" }))
      .merge(detectResources({ detectors: [resourceAttributesEnvDetector, serviceNameEnvDetector] })),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/$/, "")}/v1/traces` }),
      }),
    ],
  });
  const tracer = provider.getTracer("caller-context");
  const propagator = new W3CTraceContextPropagator();
  // The call's context, for the statements it runs; no global registration, so servers in one process stay apart.
  const current = new AsyncLocalStorage<Context>();

  const interceptor: Interceptor = (next) => async (req) => {
    const parent = propagator.extract(ROOT_CONTEXT, req.header, headerGetter);
    const scope = req.contextValues.get(requestScopeKey);
    const rest = scope?.protocol === "rest" || scope?.protocol === "http";
    const span = tracer.startSpan(
      rest ? `${scope?.httpMethod} ${scope?.route ?? scope?.path}` : `${req.service.typeName}/${req.method.name}`,
      { kind: SpanKind.SERVER, attributes: rest ? httpAttributes(scope) : rpcAttributes(scope, req) },
      parent,
    );
    try {
      const res = await current.run(trace.setSpan(parent, span), () => next(req));
      answered(span, scope, rest, undefined);
      return res;
    } catch (thrown) {
      answered(span, scope, rest, thrown);
      throw thrown;
    } finally {
      span.end();
    }
  };

  const onQuery = (event: LogEvent) => {
    const parent = current.getStore();
    if (parent === undefined) return; // start-up, migrations, the sweeper: not a call
    const end = Date.now();
    const { operation, table } = summarizeStatement(event.query.sql);
    const span = tracer.startSpan(
      table === undefined ? operation : `${operation} ${table}`,
      {
        kind: SpanKind.CLIENT,
        startTime: end - event.queryDurationMillis,
        // The statement text has placeholders, never the values.
        attributes: {
          "db.system.name": "postgresql",
          "db.operation.name": operation,
          ...(table === undefined ? {} : { "db.collection.name": table }),
          "db.query.text": event.query.sql,
        },
      },
      parent,
    );
    if (event.level === "error") {
      span.setAttribute("error.type", errorType(event.error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(event.error) });
    }
    span.end(end);
  };

  return { interceptor, onQuery, shutdown: () => provider.shutdown() };
}

// url.path is left out: the conventions require it, but a customer's path holds its customer_ref (and a
// webhook's its address), which spans, kept by whoever runs the collector, should not carry; http.route
// gives the same path with those segments as {parameters} (docs/operations.md, "Tracing").
function httpAttributes(scope: RequestScope | undefined) {
  return {
    "http.request.method": scope?.httpMethod ?? "_OTHER",
    ...(scope?.route === undefined ? {} : { "http.route": scope.route }),
    ...(scope === undefined ? {} : { "url.scheme": scope.scheme }),
  };
}

function rpcAttributes(
  scope: RequestScope | undefined,
  req: { service: { typeName: string }; method: { name: string } },
) {
  const grpc = scope?.protocol === "grpc" || scope?.protocol === "grpc-web";
  return {
    "rpc.system": grpc ? "grpc" : "connect_rpc",
    "rpc.service": req.service.typeName,
    "rpc.method": req.method.name,
  };
}

/** Records how the call was answered: its status or code, and the span's status by the conventions. */
function answered(span: Span, scope: RequestScope | undefined, rest: boolean, thrown: unknown): void {
  const error = thrown === undefined ? undefined : ConnectError.from(thrown);
  if (rest) {
    const status = thrown === undefined ? 200 : errorResponse(thrown).status;
    span.setAttribute("http.response.status_code", status);
    if (status >= 500) {
      span.setAttribute("error.type", String(status));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error?.rawMessage });
    }
    return;
  }
  const grpc = scope?.protocol === "grpc" || scope?.protocol === "grpc-web";
  if (grpc) span.setAttribute("rpc.grpc.status_code", error?.code ?? 0);
  if (error === undefined) return;
  if (!grpc) span.setAttribute("rpc.connect_rpc.error_code", codeToString(error.code));
  if (SERVER_FAULTS.has(error.code)) {
    span.setAttribute("error.type", codeToString(error.code));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.rawMessage });
  }
}

/** The codes the RPC conventions count as a server span's error; the rest are the client's. */
const SERVER_FAULTS = new Set([
  Code.Unknown,
  Code.DeadlineExceeded,
  Code.Unimplemented,
  Code.Internal,
  Code.Unavailable,
  Code.DataLoss,
]);

function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : ((error as Error | null)?.name ?? "_OTHER");
}
