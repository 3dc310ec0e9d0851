import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { HealthService } from "../../gen/callercontext/v1/health_pb.ts";
import type { AppContext } from "../context.ts";
import { restStatusKey } from "../pipeline/context-values.ts";
import { RETRY_AFTER_SECONDS, setRetryAfter } from "../pipeline/retry-after.ts";

/**
 * Healthy when a real round trip to the database succeeds; degraded (still
 * 200: the instance answers) while it refuses calls to protect itself.
 */
export function createHealthService(app: AppContext): ServiceImpl<typeof HealthService> {
  return {
    async check(_request, context) {
      const connected = await app.database.ping().then(
        () => true,
        () => false,
      );
      if (!connected) {
        context.values.set(restStatusKey, 503);
        setRetryAfter(context.responseHeader, RETRY_AFTER_SECONDS.unhealthy);
      }
      return {
        status: !connected ? "unhealthy" : app.admission.shedding() ? "degraded" : "healthy",
        timestamp: timestampFromMs(app.clock.now().getTime()),
        database: connected ? "connected" : "disconnected",
      };
    },
  };
}
