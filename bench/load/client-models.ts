import type { CallDriver } from "./call-driver.ts";
import { createGrpcDriver } from "./grpc-load.ts";
import { createRestDriver, createRestPerRequestDriver } from "./rest-load.ts";

// The three ways real callers reach the service, each of which the load points
// and the bursts run with: a REST client with a fixed pool of keep-alive
// connections and a 10 s timeout (the default shape of most HTTP client
// libraries and SDKs), a REST client opening a new connection for every request
// (a webhook sender), and gRPC multiplexed over two channels (a voice stack).
// Each is offered a share of its own capacity C: the calls/s of a closed loop
// (16 in flight) of the same client. A new connection per request costs both
// sides more than a kept one (a TCP handshake, an accept, a socket set up and
// closed, on the same two cores), so its capacity is measured, not assumed to
// be the pool's (bench/README.md, "Client models").

/** Channels of the gRPC client model: calls multiplex over them. */
export const GRPC_CHANNELS = 2;

export interface ClientModel {
  /** The name its phases and targets carry. */
  readonly via: string;
  /** Whose closed loop gives its capacity C. */
  readonly capacityFrom: "closed.rest" | "closed.rest-new" | "closed.grpc";
  readonly openKey: "open.rest" | "open.rest-new" | "open.grpc";
  readonly burstKey: "burst.rest" | "burst.rest-new" | "burst.grpc";
  /** Whether the latency floors (bare HTTP, DB only) are measured at its 50 % rate. */
  readonly floors: boolean;
  driver(): CallDriver;
}

export function clientModels(baseUrl: string, apiKeys: readonly string[], poolConnections: number): ClientModel[] {
  return [
    {
      via: "REST",
      capacityFrom: "closed.rest",
      openKey: "open.rest",
      burstKey: "burst.rest",
      floors: true,
      driver: () => createRestDriver(baseUrl, apiKeys, poolConnections),
    },
    {
      via: "REST new connection",
      capacityFrom: "closed.rest-new",
      openKey: "open.rest-new",
      burstKey: "burst.rest-new",
      floors: false,
      driver: () => createRestPerRequestDriver(baseUrl, apiKeys),
    },
    {
      via: "gRPC",
      capacityFrom: "closed.grpc",
      openKey: "open.grpc",
      burstKey: "burst.grpc",
      floors: true,
      driver: () => createGrpcDriver(baseUrl, apiKeys, GRPC_CHANNELS),
    },
  ];
}
