import { createContextKey } from "@connectrpc/connect";
import type { ChargeOutcome } from "../calls/billed.ts";
import type { NoContextReason } from "../domain/context-variables.ts";
import type { FieldIssue } from "../domain/domain-error.ts";
import type { Integration } from "../domain/integration.ts";
import type { Principal } from "../domain/principal.ts";
import type { WebhookEvent } from "../domain/webhook-event.ts";
import type { Charge } from "../store/calls/call-statement.ts";

// Values the host and the guards hand to the service implementation.

/** Problems the REST host found while decoding the JSON body (wrong types, unknown fields). */
export const decodeIssuesKey = createContextKey<readonly FieldIssue[]>([], {
  description: "issues found while decoding the request body",
});

/** Set by the authentication guard; every API-key method may rely on it. */
export const principalKey = createContextKey<Principal | undefined>(undefined, {
  description: "the authenticated API key's tenant",
});

/**
 * An HTTP status other than 200 for a successful result on the REST host (the
 * health check answers 503 while its body still reports what is down).
 * gRPC and Connect ignore it.
 */
export const restStatusKey = createContextKey<number>(200, { description: "REST status of a successful result" });

/** Set by the quota guard for a billed method: the service passes it to the use case, whose write takes it. */
export const chargeKey = createContextKey<Charge | undefined>(undefined, {
  description: "the charge the call's own statement takes",
});

/**
 * Set once by the service method from its use case's answer (billedAnswer in src/rpc/caller-context-service.ts):
 * what became of the charge, which the quota guard settles once the method returns or throws.
 */
export const chargeOutcomeKey = createContextKey<ChargeOutcome | undefined>(undefined, {
  description: "what became of the call's charge",
});

/** The client's address as the host saw it, for limits per source. */
export const peerAddressKey = createContextKey<string>("unknown", { description: "the client's address" });

/** Set by the time budget: epoch ms (real time) after which the call's write must not commit. */
export const deadlineKey = createContextKey<number | undefined>(undefined, {
  description: "when the call's client is answered 503",
});

/** Set by the authentication guard for a verified platform webhook. */
export const integrationKey = createContextKey<Integration | undefined>(undefined, {
  description: "the integration a webhook came through",
});

/** Set by the webhook triage: the platform's message as read, so the handler does not read it again. */
export const webhookEventKey = createContextKey<WebhookEvent | undefined>(undefined, {
  description: "the verified platform message, read",
});

/**
 * Set for a request that completes a call already let in (a platform's end-of-call report): it is never
 * refused for the rate limit or the quota, and is saved unbilled when no credit is left, since a platform
 * cannot be asked to come back with it later.
 */
export const completesCallKey = createContextKey<boolean>(false, {
  description: "completes a call already let in",
});

/**
 * Set by the webhook triage for a verified webhook: notes that it was answered without context (in the
 * request's report and the counter), for the handler whose use case decided so.
 */
export const noteNoContextKey = createContextKey<((reason: NoContextReason) => void) | undefined>(undefined, {
  description: "notes a webhook answered without context",
});
