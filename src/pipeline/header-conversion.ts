import type { IncomingHttpHeaders } from "node:http";

// Node's header objects ⇄ the Fetch API's Headers, which Connect uses.

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
