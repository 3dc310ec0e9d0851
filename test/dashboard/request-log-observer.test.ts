import { describe, expect, it } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import type { RequestLog } from "../../src/pipeline/request-log-sink.ts";
import type { RequestRecord } from "../../src/pipeline/request-scope.ts";
import { requestLogObserver } from "../../src/request-log/request-log.ts";
import type { RequestLogEntry } from "../../src/store/request-log-repository.ts";

// Which finished requests the Requests page keeps, and how each reads.

const clock = createManualClock(new Date("2026-11-20T10:00:00Z"));
const base: RequestRecord = {
  requestId: "r1",
  protocol: "rest",
  httpMethod: "POST",
  path: "/v1/calls/start",
  route: "/v1/calls/start",
  service: "callercontext.v1.CallerContextService",
  method: "StartCall",
  httpStatus: 200,
  code: "ok",
  durationMs: 12.345,
  keyId: "key_1",
  peer: "127.0.0.1",
};

function observe(record: Partial<RequestRecord>): RequestLogEntry[] {
  const entries: RequestLogEntry[] = [];
  const log: RequestLog = { record: (e) => void entries.push(e), flush: async () => {}, close: async () => {} };
  requestLogObserver(log, clock)({ ...base, ...record });
  return entries;
}

describe("request log observer", () => {
  it("records a REST request by its method and route template, with its HTTP status and latency", () => {
    expect(observe({})).toEqual([
      {
        keyId: "key_1",
        at: clock.now(),
        protocol: "rest",
        route: "POST /v1/calls/start",
        status: 200,
        latencyMs: 12.3,
        requestId: "r1",
      },
    ]);
  });

  it("records an RPC by service and method; a gRPC one by its gRPC status code, not HTTP's 200", () => {
    const rpc = { route: undefined, path: "/callercontext.v1.CallerContextService/StartCall" };
    expect(observe({ ...rpc, protocol: "connect", httpStatus: 401, code: "unauthenticated" })[0]).toMatchObject({
      route: "callercontext.v1.CallerContextService/StartCall",
      status: 401,
    });
    expect(observe({ ...rpc, protocol: "grpc", httpStatus: 200, code: "unauthenticated" })[0]?.status).toBe(16);
    expect(observe({ ...rpc, protocol: "grpc", httpStatus: 200, code: "ok" })[0]?.status).toBe(0);
  });

  it("leaves out requests no key authenticated and the dashboard's own pages", () => {
    expect(observe({ keyId: undefined, httpStatus: 401 })).toEqual([]);
    expect(observe({ protocol: "http", path: "/dashboard/keys", route: undefined })).toEqual([]);
  });

  it("never records a raw path, which may carry a customer_ref", () => {
    const ref = "6f1c2b9e-0000-4000-8000-000000000000";
    const entry = observe({ route: undefined, method: undefined, path: `/v1/customers/${ref}` })[0];
    expect(JSON.stringify(entry)).not.toContain(ref);
  });
});
