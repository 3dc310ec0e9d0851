import type { RequestObserver } from "../http/request-observers.ts";
import type { Metrics } from "./metrics.ts";

// Every request, whatever its protocol, as the request pipeline reports it
// once it is done: its HTTP duration by route, and for API calls the RPC
// duration by service, method and code.

export function metricsObserver(metrics: Metrics): RequestObserver {
  return (record) => {
    const seconds = record.durationMs / 1000;
    metrics.httpDuration.observe(
      {
        method: record.httpMethod,
        // A template or a method name, never the raw path (it may carry ids, and would not stay bounded).
        route: record.route ?? (record.method ? `/${record.service}/${record.method}` : "other"),
        status: String(record.httpStatus),
      },
      seconds,
    );
    if (record.method !== undefined && record.service !== undefined) {
      metrics.rpcDuration.observe(
        { service: record.service, method: record.method, code: record.code ?? "unknown" },
        seconds,
      );
    }
  };
}
