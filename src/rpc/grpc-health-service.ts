import { setTimeout as sleep } from "node:timers/promises";
import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import {
  type Health,
  type HealthCheckResponse,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "../../gen/grpc/health/v1/health_pb.ts";
import type { Database } from "../store/database.ts";

// gRPC's standard health protocol (Kubernetes gRPC probes, Envoy,
// grpc-health-probe). Every service, and the server as a whole (""), serves
// while the database answers: none of them can do its work without it.

export interface GrpcHealthOptions {
  readonly database: Pick<Database, "ping">;
  /** The services answered by name, besides "" for the whole server. */
  readonly services: readonly DescService[];
  /** A ping slower than this counts as no answer. */
  readonly pingTimeoutMs: number;
  /** How often a Watch looks again. */
  readonly watchIntervalMs: number;
}

export function createGrpcHealthService(options: GrpcHealthOptions): ServiceImpl<typeof Health> {
  const names = new Set(["", ...options.services.map((service) => service.typeName)]);
  const status = () => databaseStatus(options.database, options.pingTimeoutMs);
  return {
    async check(request) {
      if (!names.has(request.service)) {
        throw new ConnectError(`unknown service ${request.service}`, Code.NotFound);
      }
      return { status: await status() };
    },
    async list() {
      const current = await status();
      const statuses: Record<string, HealthCheckResponse> = {};
      for (const name of names) statuses[name] = { $typeName: "grpc.health.v1.HealthCheckResponse", status: current };
      return { statuses };
    },
    // The current status at once, then each change; an unknown service stays
    // SERVICE_UNKNOWN on an open stream, as the protocol asks.
    async *watch(request, context) {
      const known = names.has(request.service);
      let last: ServingStatus | undefined;
      while (!context.signal.aborted) {
        const current = known ? await status() : ServingStatus.SERVICE_UNKNOWN;
        if (current !== last) yield { status: current };
        last = current;
        await sleep(options.watchIntervalMs, undefined, { signal: context.signal }).catch(() => {});
      }
    },
  };
}

async function databaseStatus(database: Pick<Database, "ping">, timeoutMs: number): Promise<ServingStatus> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const answered = await Promise.race([
    database.ping().then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => timeout.addEventListener("abort", () => resolve(false), { once: true })),
  ]);
  return answered ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
}
