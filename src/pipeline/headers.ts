import type { IncomingHttpHeaders } from "node:http";
import { ConnectError } from "@connectrpc/connect";

// The headers every protocol shares: Node's header objects ⇄ the Fetch API's
// Headers (which Connect uses), and the limit headers of an authenticated answer.

const COLON = 58;

/** A request's headers as Headers, without HTTP/2 pseudo-headers (":path", …), which Headers refuses. */
export function headersFrom(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const name in raw) {
    if (name.charCodeAt(0) === COLON) continue;
    const value = raw[name];
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return headers;
}

/** The headers of a REST answer: gRPC's own (grpc-retry-pushback-ms and its like) mean nothing to an HTTP client. */
export function restHeaderObject(headers: Headers): Record<string, string> {
  return headerObject(headers, isNotGrpcOwn);
}

const isNotGrpcOwn = (name: string) => !name.startsWith("grpc-");
const keepAll = () => true;

export function headerObject(headers: Headers, keep: (name: string) => boolean = keepAll): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (keep(name)) out[name] = value;
  });
  return out;
}

// The one writer of the limit headers every authenticated answer carries (docs/api.md): the rate limit's
// window (x-ratelimit-limit, -remaining, -reset) and the credits left this month (x-quota-remaining), on a
// response, or on an error's metadata when the call fails.

export interface Limits {
  readonly rateLimit?: { readonly limit: number; readonly remaining: number; readonly resetAtMs: number };
  readonly quotaRemaining?: number;
}

export function writeLimitHeaders(headers: Headers, limits: Limits): void {
  const { rateLimit, quotaRemaining } = limits;
  if (rateLimit !== undefined) {
    headers.set("x-ratelimit-limit", String(rateLimit.limit));
    headers.set("x-ratelimit-remaining", String(rateLimit.remaining));
    headers.set("x-ratelimit-reset", String(rateLimit.resetAtMs));
  }
  if (quotaRemaining !== undefined) headers.set("x-quota-remaining", String(quotaRemaining));
}

/**
 * Writes the limits on the answer of `call`, or on its error when it fails with a ConnectError. `limits` may
 * be a function, read once the call has settled (the quota's count after the call's charge).
 */
export async function withLimitHeaders<R extends { header: Headers }>(
  limits: Limits | (() => Limits),
  call: () => Promise<R>,
): Promise<R> {
  const read = typeof limits === "function" ? limits : () => limits;
  try {
    const res = await call();
    writeLimitHeaders(res.header, read());
    return res;
  } catch (error) {
    if (error instanceof ConnectError) writeLimitHeaders(error.metadata, read());
    throw error;
  }
}
