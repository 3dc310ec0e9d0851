import type { MessageInitShape } from "@bufbuild/protobuf";
import { createClient, type Interceptor } from "@connectrpc/connect";
import { type CallOptions, createCallRunner } from "./call-runner.ts";
import { type CustomerRecords, createCustomerRecords } from "./customer-records.ts";
import {
  CallerContextService,
  type EndCallRequestSchema,
  type EndCallResponse,
  type ExportContactFiguresResponse,
  type GetContactFiguresResponse,
  type GetUsageResponse,
  type IdentifyCallRequestSchema,
  type IdentifyCallResponse,
  type StartCallRequestSchema,
  type StartCallResponse,
} from "./gen/callercontext/v1/caller_context_pb.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.ts";
import { createTransport, type Protocol } from "./transport.ts";

export interface CallerContextClientOptions {
  /** Where the service listens, e.g. "https://callers.example.com". */
  readonly baseUrl: string;
  /** An `sk_test_…` or `sk_prod_…` key, sent as `Authorization: Bearer …`. */
  readonly apiKey: string;
  /** `connect` (HTTP/1.1, the default) or `grpc` (HTTP/2). */
  readonly protocol?: Protocol;
  /** Default deadline of every call, retries included (5000 ms). */
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** Connect interceptors run on every attempt (logging, tracing). */
  readonly interceptors?: readonly Interceptor[];
}

export type StartCallInput = MessageInitShape<typeof StartCallRequestSchema>;
export type EndCallInput = MessageInitShape<typeof EndCallRequestSchema>;
export type IdentifyCallInput = MessageInitShape<typeof IdentifyCallRequestSchema>;

/** UTC days, both included, at most 366 of them. */
export interface ContactPeriodInput {
  readonly from: string;
  readonly to: string;
}

export interface EndCallOptions extends CallOptions {
  /** Makes the end safe to repeat; one is generated per `end` when not given and reused by its retries. */
  readonly idempotencyKey?: string;
}

export interface CallerContextClient {
  /** Identifies the caller and returns their context. Retried only when the service certainly did not act. */
  start(request: StartCallInput, options?: CallOptions): Promise<StartCallResponse>;
  /** Closes the call and saves its intents and variables, always with an Idempotency-Key. */
  end(request: EndCallInput, options?: EndCallOptions): Promise<EndCallResponse>;
  /** Identifies the caller of a started call again (`verified: true` when the agent checked who they are). */
  identify(request: IdentifyCallInput, options?: CallOptions): Promise<IdentifyCallResponse>;
  /** The quota and rate limit left to the key's account; not billed. */
  usage(options?: CallOptions): Promise<GetUsageResponse>;
  /** First-contact resolution and repeat contacts of UTC days `from`..`to` ("2026-11-01"), with the period before; not billed. */
  contactFigures(period: ContactPeriodInput, options?: CallOptions): Promise<GetContactFiguresResponse>;
  /** The same figures as CSV text; not billed. */
  contactFiguresCsv(period: ContactPeriodInput, options?: CallOptions): Promise<ExportContactFiguresResponse>;
  /** Look up, list, erase, merge and unlink customer records. */
  readonly customers: CustomerRecords;
  /** Closes the client's connections. */
  close(): void;
}

export function createCallerContextClient(options: CallerContextClientOptions): CallerContextClient {
  const { transport, close } = createTransport({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    protocol: options.protocol ?? "connect",
    interceptors: options.interceptors ?? [],
  });
  const runner = createCallRunner({
    timeoutMs: options.timeoutMs ?? 5_000,
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
  });
  const calls = createClient(CallerContextService, transport);
  return {
    start: (request, callOptions) => runner.run("once", callOptions, (o) => calls.startCall(request, o)),
    end(request, callOptions) {
      const idempotencyKey = callOptions?.idempotencyKey ?? `end-${globalThis.crypto.randomUUID()}`;
      return runner.run("repeatable", callOptions, (o) => calls.endCall(request, o), {
        "idempotency-key": idempotencyKey,
      });
    },
    identify: (request, callOptions) => runner.run("once", callOptions, (o) => calls.identifyCall(request, o)),
    usage: (callOptions) => runner.run("repeatable", callOptions, (o) => calls.getUsage({}, o)),
    contactFigures: (period, callOptions) =>
      runner.run("repeatable", callOptions, (o) => calls.getContactFigures({ from: period.from, to: period.to }, o)),
    contactFiguresCsv: (period, callOptions) =>
      runner.run("repeatable", callOptions, (o) => calls.exportContactFigures({ from: period.from, to: period.to }, o)),
    customers: createCustomerRecords(transport, runner),
    close,
  };
}
