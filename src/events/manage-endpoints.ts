import { getAccount } from "../accounts/get-account.ts";
import { ROLL_GRACES } from "../accounts/roll-key.ts";
import { DomainError, type FieldIssue } from "../domain/domain-error.ts";
import type { EventEndpoint } from "../domain/events.ts";
import { refuseOffendingFields } from "../domain/offending-fields.ts";
import {
  deleteEventEndpointRow,
  findEventEndpointRow,
  listEventEndpointRows,
  rollEventEndpointSecret,
  setEventEndpointEnabled,
} from "../store/event-endpoint-repository.ts";
import type { EventEndpointRow } from "../store/schema.ts";
import type { EventDeps } from "./event-deps.ts";
import { endpointRowToEndpoint } from "./event-rows.ts";
import { newSigningSecret } from "./sign-event.ts";

// Listing, enabling, disabling, rolling and deleting endpoints. An owner's
// account, when given (the dashboard), must hold the endpoint; the admin API
// names any.

export async function listEndpoints(deps: EventDeps, accountId: string): Promise<EventEndpoint[]> {
  await getAccount(deps, accountId);
  return (await listEventEndpointRows(deps.db, accountId)).map(endpointRowToEndpoint);
}

export async function findOwnedEndpoint(
  deps: Pick<EventDeps, "db">,
  endpointId: string,
  ownerAccountId?: string,
): Promise<EventEndpointRow> {
  const row = await findEventEndpointRow(deps.db, endpointId, ownerAccountId);
  if (row === undefined) throw new DomainError("not_found", `Event endpoint '${endpointId}' not found`);
  return row;
}

/** Enabling also ends the failure run that disabled it: deliveries still pending go out again. */
export async function setEndpointEnabled(
  deps: EventDeps,
  endpointId: string,
  enabled: boolean,
  ownerAccountId?: string,
): Promise<EventEndpoint> {
  await findOwnedEndpoint(deps, endpointId, ownerAccountId);
  const row = await setEventEndpointEnabled(deps.db, endpointId, enabled);
  if (row === undefined) throw new DomainError("not_found", `Event endpoint '${endpointId}' not found`);
  return endpointRowToEndpoint(row);
}

/**
 * A new signing secret, shown once; the old one keeps signing beside it (a
 * second signature in webhook-signature) for the grace the owner picks, as
 * a rolled API key keeps working.
 */
export async function rollEndpointSecret(
  deps: EventDeps,
  endpointId: string,
  grace: string,
  ownerAccountId?: string,
  decodeIssues: readonly FieldIssue[] = [],
): Promise<{ endpoint: EventEndpoint; signingSecret: string; previousExpiresAt: Date }> {
  const issues: FieldIssue[] = [];
  if (!Object.hasOwn(ROLL_GRACES, grace)) {
    issues.push({ path: ["grace"], message: `Expected one of: ${Object.keys(ROLL_GRACES).join(", ")}` });
  }
  // What the host could not decode comes first: one 400 names every offending field.
  refuseOffendingFields(issues, decodeIssues);
  await findOwnedEndpoint(deps, endpointId, ownerAccountId);
  const signingSecret = newSigningSecret();
  const previousExpiresAt = new Date(deps.clock.now().getTime() + ROLL_GRACES[grace as keyof typeof ROLL_GRACES]);
  const row = await rollEventEndpointSecret(deps.db, endpointId, deps.secrets.seal(signingSecret), previousExpiresAt);
  if (row === undefined) throw new DomainError("not_found", `Event endpoint '${endpointId}' not found`);
  return { endpoint: endpointRowToEndpoint(row), signingSecret, previousExpiresAt };
}

/** The endpoint goes with its deliveries, pending or not. */
export async function deleteEndpoint(
  deps: EventDeps,
  endpointId: string,
  ownerAccountId?: string,
): Promise<EventEndpoint> {
  await findOwnedEndpoint(deps, endpointId, ownerAccountId);
  const row = await deleteEventEndpointRow(deps.db, endpointId);
  if (row === undefined) throw new DomainError("not_found", `Event endpoint '${endpointId}' not found`);
  return endpointRowToEndpoint(row);
}
