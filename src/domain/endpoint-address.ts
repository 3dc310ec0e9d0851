import ipaddr from "ipaddr.js";
import type { Mode } from "./tenant.ts";

// Where an event may be sent. Production endpoints: https, and only to public
// unicast addresses, checked when the endpoint is created and again on every
// delivery after DNS resolution (so a name that later resolves inward is
// caught). Test endpoints (test keys' data) may use http and any address, so a
// receiver on the developer's own machine works.

export type AddressVerdict = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/** Whether an IP address may be connected to for an endpoint of this kind. */
export function checkAddress(address: string, kind: Mode): AddressVerdict {
  if (kind === "test") return { allowed: true };
  if (!ipaddr.isValid(address)) return { allowed: false, reason: `'${address}' is not an IP address` };
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  // Only "unicast" is the public internet; everything else (private, loopback, linkLocal, uniqueLocal,
  // carrierGradeNat, reserved, multicast, 6to4, teredo...) is refused.
  if (range !== "unicast") return { allowed: false, reason: `${address} is a ${range} address` };
  return { allowed: true };
}

/** Parses an endpoint URL; a reason when it cannot be one. */
export function checkEndpointUrl(url: string, kind: Mode): { url: URL } | { reason: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { reason: "Must be an absolute http(s) URL" };
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return { reason: "Must be an http(s) URL" };
  if (kind === "prod" && parsed.protocol !== "https:") return { reason: "Must use https for production data" };
  if (parsed.username !== "" || parsed.password !== "") return { reason: "Must not carry credentials" };
  if (parsed.hash !== "") return { reason: "Must not have a fragment" };
  const host = hostOf(parsed);
  if (ipaddr.isValid(host)) {
    const verdict = checkAddress(host, kind);
    if (!verdict.allowed) return { reason: `Refused: ${verdict.reason}` };
  } else if (kind === "prod" && (host === "localhost" || host.endsWith(".localhost"))) {
    return { reason: "Refused: localhost is a loopback address" };
  }
  return { url: parsed };
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}
