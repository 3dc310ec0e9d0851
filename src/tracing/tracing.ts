import { AsyncLocalStorage } from "node:async_hooks";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
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
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { LogEvent } from "kysely";
import type { Protocol } from "../http/request-observers.ts";
import { requestScopeKey } from "../http/request-scope.ts";

// Opt-in tracing (OTEL_EXPORTER_OTLP_ENDPOINT): one server span per API call
// over every protocol, continuing the caller's W3C traceparent, with a child
// span per database statement, exported over OTLP/HTTP. This module is only
// loaded when tracing is on, so it costs nothing when off.

export interface TracingOptions {
  /** The collector's base URL; spans go to <endpoint>/v1/traces. */
  readonly endpoint: string;
  readonly serviceName: string;
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
    resource: resourceFromAttributes({ "service.name": options.serviceName }),
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
    const span = tracer.startSpan(
      `${req.service.typeName}/${req.method.name}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          "rpc.system": rpcSystem(req.contextValues.get(requestScopeKey)?.protocol),
          "rpc.service": req.service.typeName,
          "rpc.method": req.method.name,
        },
      },
      parent,
    );
    try {
      return await current.run(trace.setSpan(parent, span), () => next(req));
    } catch (thrown) {
      fail(span, ConnectError.from(thrown));
      throw thrown;
    } finally {
      span.end();
    }
  };

  const onQuery = (event: LogEvent) => {
    const parent = current.getStore();
    if (parent === undefined) return; // start-up, migrations, the sweeper: not a call
    const end = Date.now();
    const span = tracer.startSpan(
      event.query.sql.split(/\s/, 1)[0].toLowerCase(),
      {
        kind: SpanKind.CLIENT,
        startTime: end - event.queryDurationMillis,
        // The statement text has placeholders, never the values.
        attributes: { "db.system.name": "postgresql", "db.query.text": event.query.sql },
      },
      parent,
    );
    if (event.level === "error") span.setStatus({ code: SpanStatusCode.ERROR, message: String(event.error) });
    span.end(end);
  };

  return { interceptor, onQuery, shutdown: () => provider.shutdown() };
}

/** OpenTelemetry's rpc.system for the protocol the host found the request to speak. */
function rpcSystem(protocol: Protocol | undefined): string {
  if (protocol === "grpc" || protocol === "grpc-web") return "grpc";
  return protocol === "connect" ? "connect_rpc" : "rest";
}

function fail(span: Span, error: ConnectError): void {
  span.setAttribute("rpc.connect_rpc.error_code", Code[error.code]);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.rawMessage });
}
