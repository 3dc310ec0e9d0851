import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { checkAddress, hostOf } from "../domain/endpoint-address.ts";
import type { Mode } from "../domain/tenant.ts";

// One POST of an event to an endpoint, made safe for a URL a customer chose:
// the address is checked after DNS resolution, just before connecting (a
// name that resolves inward, or changes to, is refused); redirects are not
// followed (a 3xx is a failure); the whole exchange has a deadline; at most
// `maxResponseBytes` of the answer are read. Never throws: the outcome is a value.

export interface PostOptions {
  readonly kind: Mode;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  /** Ends the attempt early (the instance is shutting down). */
  readonly signal?: AbortSignal;
}

export type PostOutcome =
  | { readonly ok: true; readonly status: number }
  | { readonly ok: false; readonly status: number | null; readonly error: string };

export function postEvent(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<PostOutcome> {
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return resolve({ ok: false, status: null, error: "invalid URL" });
    }
    // A literal IP address is never looked up: check it here.
    const host = hostOf(target);
    const literal = checkLiteral(host, options.kind);
    if (literal !== undefined) return resolve({ ok: false, status: null, error: literal });
    const client = target.protocol === "https:" ? https : http;
    const request = client.request(target, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      lookup: checkedLookup(options.kind),
      signal: AbortSignal.any([AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])]),
      agent: false,
    });
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      let received = 0;
      const finish = () => {
        if (status >= 200 && status < 300) resolve({ ok: true, status });
        else resolve({ ok: false, status, error: `HTTP ${status}` });
      };
      response.on("data", (chunk: Buffer) => {
        received += chunk.length;
        // The answer's body means nothing to us; past the cap, stop reading and judge by the status.
        if (received > options.maxResponseBytes) {
          response.destroy();
          finish();
        }
      });
      response.on("end", finish);
      response.on("error", () => finish());
    });
    request.on("error", (error) => resolve({ ok: false, status: null, error: describe(error) }));
    request.end(body);
  });
}

function checkLiteral(host: string, kind: Mode): string | undefined {
  if (!/^[\d.]+$|:/.test(host)) return undefined;
  const verdict = checkAddress(host, kind);
  return verdict.allowed ? undefined : `refused: ${verdict.reason}`;
}

/** DNS as usual, then every address it gave checked; one refused address refuses the connection. */
function checkedLookup(kind: Mode): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      for (const { address } of addresses) {
        const verdict = checkAddress(address, kind);
        if (!verdict.allowed) {
          return callback(
            Object.assign(new Error(`refused: ${hostname} resolves to ${verdict.reason}`), {
              code: "EREFUSEDADDRESS",
            }),
            "",
            0,
          );
        }
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (first === undefined) return callback(new Error(`no address for ${hostname}`), "", 0);
      callback(null, first.address, first.family);
    });
  };
}

function describe(error: Error): string {
  if (error.name === "TimeoutError" || error.name === "AbortError") return "timed out";
  // Messages of the network stack name the host and the reason, never a secret: the URL's credentials are refused.
  return error.message.slice(0, 200);
}
