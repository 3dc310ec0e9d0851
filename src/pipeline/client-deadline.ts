import { parseTimeout } from "@connectrpc/connect/protocol-grpc";

// The deadline a client sent with its call, read from the headers an
// interceptor sees: gRPC's grpc-timeout ("250m", "1S") and the Connect
// protocol's connect-timeout-ms. A REST client sends neither.

/** Epoch ms by which the client stops waiting, if it said; a malformed value is no deadline (Connect answers it). */
export function clientDeadline(header: Headers, now: number = Date.now()): number | undefined {
  const grpc = header.get("grpc-timeout");
  if (grpc !== null) {
    const { timeoutMs } = parseTimeout(grpc, Number.MAX_SAFE_INTEGER);
    return timeoutMs === undefined ? undefined : now + timeoutMs;
  }
  const connect = Number(header.get("connect-timeout-ms") ?? Number.NaN);
  return Number.isSafeInteger(connect) && connect > 0 ? now + connect : undefined;
}

/** The earlier of two deadlines, either of which may be missing. */
export function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}
