import { lookup } from "node:dns/promises";
import { checkKind } from "../accounts/account-checks.ts";
import { getAccount } from "../accounts/get-account.ts";
import { randomBase62 } from "../domain/api-key.ts";
import type { FieldIssue } from "../domain/domain-error.ts";
import { checkAddress, checkEndpointUrl, hostOf } from "../domain/endpoint-address.ts";
import { EVENT_TYPES, type EventEndpoint, isEventType } from "../domain/events.ts";
import { refuseOffendingFields } from "../domain/offending-fields.ts";
import type { Mode } from "../domain/tenant.ts";
import { insertEventEndpoint } from "../store/event-endpoint-repository.ts";
import type { EventDeps, ResolveHost } from "./event-deps.ts";
import { endpointRowToEndpoint } from "./event-rows.ts";
import { newSigningSecret } from "./sign-event.ts";

export interface CreateEndpointInput {
  readonly accountId: string;
  readonly url: string;
  readonly kind?: string;
  readonly eventTypes: readonly string[];
  readonly includeVariableValues: boolean;
  /** What the host could not decode of the request: refused with the rules' issues, in one answer. */
  readonly decodeIssues?: readonly FieldIssue[];
}

export interface CreatedEndpoint {
  readonly endpoint: EventEndpoint;
  /** Shown once: the receiver verifies signatures with it. */
  readonly signingSecret: string;
}

const MAX_URL_LENGTH = 2048;

/**
 * An endpoint receiving the chosen events of one data kind. A production
 * endpoint must use https and must not be or resolve to a private, loopback
 * or link-local address (checked again on every delivery); a test endpoint may
 * point anywhere, so a developer's own machine can receive.
 */
export async function createEndpoint(deps: EventDeps, input: CreateEndpointInput): Promise<CreatedEndpoint> {
  const issues: FieldIssue[] = [];
  checkKind(issues, input.kind ?? "test");
  // A kind outside the set is named above; the URL is still checked, as the looser test kind allows it.
  const kind: Mode = input.kind === "prod" ? "prod" : "test";
  const types = [...new Set(input.eventTypes)];
  if (types.length === 0) issues.push({ path: ["event_types"], message: "Choose at least one event type" });
  types.forEach((type, index) => {
    if (!isEventType(type)) {
      issues.push({ path: ["event_types", String(index)], message: `Expected one of: ${EVENT_TYPES.join(", ")}` });
    }
  });
  if (input.url.length > MAX_URL_LENGTH) {
    issues.push({ path: ["url"], message: `At most ${MAX_URL_LENGTH} characters` });
  } else {
    const checked = checkEndpointUrl(input.url, kind);
    if ("reason" in checked) issues.push({ path: ["url"], message: checked.reason });
    else {
      const refused = await refusedAddress(deps.resolveHost, hostOf(checked.url), kind);
      if (refused !== undefined) issues.push({ path: ["url"], message: refused });
    }
  }
  refuseOffendingFields(issues, input.decodeIssues);
  await getAccount(deps, input.accountId);
  const signingSecret = newSigningSecret();
  const row = await insertEventEndpoint(deps.db, {
    id: `we_${randomBase62(16)}`,
    account_id: input.accountId,
    kind,
    url: input.url,
    event_types: types,
    include_variable_values: input.includeVariableValues,
    enabled: true,
    disabled_reason: null,
    secret: deps.secrets.seal(signingSecret),
    previous_secret: null,
    previous_secret_expires_at: null,
    failing_since: null,
    created_at: deps.clock.now(),
  });
  return { endpoint: endpointRowToEndpoint(row), signingSecret };
}

/** For a production endpoint named by host name: what it resolves to now, each address checked. */
async function refusedAddress(resolve: ResolveHost, host: string, kind: Mode): Promise<string | undefined> {
  if (kind === "test") return undefined;
  let addresses: readonly string[];
  try {
    addresses = await resolve(host);
  } catch {
    return `Refused: ${host} does not resolve`;
  }
  for (const address of addresses) {
    const verdict = checkAddress(address, kind);
    if (!verdict.allowed) return `Refused: ${host} resolves to ${verdict.reason}`;
  }
  return undefined;
}

/** The system's resolver, every address. */
export const systemResolveHost: ResolveHost = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
