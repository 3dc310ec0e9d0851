import type { SimulatedCall } from "./workload.ts";

// One simulated call's two requests, over some way of reaching the service:
// REST, gRPC, or the store functions directly (the DB ceiling).

export interface CallDriver {
  readonly name: string;
  /** Resolves with the customer_ref of the answer; rejects on anything but success. */
  start(call: SimulatedCall): Promise<string>;
  end(call: SimulatedCall, customerRef: string): Promise<void>;
  close(): Promise<void>;
}

/** A refused or failed request, labelled for the error table ("http 429", "grpc 8"). */
export class RequestFailure extends Error {
  readonly label: string;
  constructor(label: string, message = label) {
    super(message);
    this.name = "RequestFailure";
    this.label = label;
  }
}

export function failureMessage(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 200) : String(error);
}

/** The label of a request the client gave up on at its own deadline. */
export const CLIENT_TIMEOUT = "client timeout";

export function failureLabel(error: unknown): string {
  if (error instanceof RequestFailure) return error.label;
  if (error instanceof Error && error.name === "TimeoutError") return CLIENT_TIMEOUT;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === "string") return code;
  return error instanceof Error ? error.name : "unknown";
}

/** The JSON bodies of the REST contract; the bare HTTP server answers them too. */
export function startJson(call: SimulatedCall): string {
  return JSON.stringify({
    call_id: call.callId,
    identity_hints:
      call.crmId === undefined
        ? { ani: call.ani, dnis: call.dnis }
        : { ani: call.ani, dnis: call.dnis, external_ids: { crm_id: call.crmId } },
    ...(call.mobile ? { telco: { line_type: "mobile" } } : {}),
  });
}

export function endJson(call: SimulatedCall, customerRef: string): string {
  return JSON.stringify({
    call_id: call.callId,
    customer_ref: customerRef,
    intent: call.intent,
    intent_status: call.intentStatus,
    variables: call.variables,
  });
}

/** Calls take turns over the drivers; a call's end goes the way its start went. */
export function alternateDrivers(drivers: readonly CallDriver[]): CallDriver {
  const chosen = new WeakMap<SimulatedCall, CallDriver>();
  let turn = 0;
  return {
    name: drivers.map((driver) => driver.name).join("+"),
    start(call) {
      const driver = drivers[turn++ % drivers.length];
      chosen.set(call, driver);
      return driver.start(call);
    },
    end(call, customerRef) {
      return (chosen.get(call) ?? drivers[0]).end(call, customerRef);
    },
    async close() {
      await Promise.all(drivers.map((driver) => driver.close()));
    },
  };
}
