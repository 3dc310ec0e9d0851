import type { Clock } from "../domain/clock.ts";
import type { RequestLog } from "../pipeline/request-log-sink.ts";
import { grpcStatusOf, type RequestObserver, type RequestRecord } from "../pipeline/request-scope.ts";
import type { Db } from "../store/database.ts";
import { insertRequestLog, type RequestLogEntry } from "../store/request-log-repository.ts";

// The Requests page's record of API requests, kept off the request's path:
// a finished request is pushed onto an array in memory, and a timer writes
// the array in one multi-row INSERT every second (or sooner once it holds a
// batch). Closing writes what is left, so a graceful stop loses nothing.
// Which finished requests it keeps is requestLogObserver's to say (below).

export interface RequestLogOptions {
  readonly intervalMs?: number;
  /** A batch this large is written at once rather than at the next tick. */
  readonly batchRows?: number;
  /** Past this many unwritten rows (the database is away) new ones are dropped: memory stays bounded. */
  readonly maxPending?: number;
  readonly onError: (error: unknown) => void;
}

export function createRequestLog(db: Db, options: RequestLogOptions): RequestLog {
  const batchRows = options.batchRows ?? 500;
  const maxPending = options.maxPending ?? 50_000;
  let pending: RequestLogEntry[] = [];
  let dropped = 0;
  let writing: Promise<void> = Promise.resolve();

  const flush = () => {
    if (pending.length === 0) return writing;
    const taken = pending;
    pending = [];
    // One write at a time, in order: a slow database never piles them up.
    writing = writing.then(async () => {
      for (let i = 0; i < taken.length; i += batchRows) {
        try {
          await insertRequestLog(db, taken.slice(i, i + batchRows));
        } catch (error) {
          options.onError(error);
        }
      }
      if (dropped > 0) {
        options.onError(new Error(`${dropped} requests were not recorded: too many waited to be written`));
        dropped = 0;
      }
    });
    return writing;
  };
  const timer = setInterval(() => void flush(), options.intervalMs ?? 1000);
  timer.unref();

  return {
    record(entry) {
      if (pending.length >= maxPending) {
        dropped += 1;
        return;
      }
      pending.push(entry);
      if (pending.length >= batchRows) void flush();
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

// Which finished requests the Requests page keeps, and in what words: the
// API requests an account's key made, over any protocol. The dashboard's own
// pages, the admin API and requests no key authenticated are not an
// account's API traffic (an unrecognised key names no account to show it to).

const API_PROTOCOLS = new Set(["rest", "connect", "grpc", "grpc-web"]);

export function requestLogObserver(log: RequestLog, clock: Clock): RequestObserver {
  return (record) => {
    if (record.keyId === undefined || !API_PROTOCOLS.has(record.protocol)) return;
    log.record({
      keyId: record.keyId,
      at: clock.now(),
      protocol: record.protocol,
      route: routeOf(record),
      status: statusOf(record),
      latencyMs: Math.round(record.durationMs * 10) / 10,
      requestId: record.requestId,
    });
  };
}

/** "POST /v1/calls/start" for REST, "callercontext.v1.CallerContextService/StartCall" for an RPC. */
function routeOf(record: RequestRecord): string {
  if (record.method !== undefined && record.protocol !== "rest") return `${record.service}/${record.method}`;
  if (record.route !== undefined) return `${record.httpMethod} ${record.route}`;
  // Never the raw path: it may carry a customer_ref, which an erasure must not leave behind.
  return `${record.httpMethod} (other)`;
}

/** gRPC answers 200 over HTTP whatever happened: its own status code says what did. */
function statusOf(record: RequestRecord): number {
  if (record.protocol !== "grpc" || record.code === undefined) return record.httpStatus;
  return grpcStatusOf(record.code);
}
