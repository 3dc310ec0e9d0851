import { Code } from "@connectrpc/connect";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { REQUEST_LOG_DAYS } from "../jobs/sweeper.ts";
import type { LoggedRequest } from "../store/request-log-repository.ts";
import { RECENT_REQUESTS_SHOWN, recentRequests } from "./recent-requests.ts";
import { signedIn } from "./session-guard.ts";

// The Requests page: the account's latest API requests, newest first, as the
// request log recorded them (src/request-log/): no body, no header, no secret.

/** How a row's status reads, and whether it went well, badly for the client or badly for the service. */
function outcomeOf(request: LoggedRequest): { label: string; tone: "ok" | "client" | "server" } {
  if (request.protocol === "grpc") {
    const name = Code[request.status] ?? "Unknown";
    const label = request.status === 0 ? "OK" : `${request.status} ${name}`;
    const server = [Code.Unknown, Code.Internal, Code.Unavailable, Code.DataLoss, Code.DeadlineExceeded];
    return { label, tone: request.status === 0 ? "ok" : server.includes(request.status) ? "server" : "client" };
  }
  const tone = request.status < 400 ? "ok" : request.status < 500 ? "client" : "server";
  return { label: String(request.status), tone };
}

/** "callercontext.v1.CallerContextService/StartCall" → "CallerContextService/StartCall": the package adds nothing here. */
function shortRoute(route: string): string {
  return route.replace(/^[a-z0-9_.]+\.(?=[A-Z])/, "");
}

export function registerRequestRoutes(scope: FastifyInstance, app: AppContext): void {
  const deps = { db: app.database.db, clock: app.clock, requestLog: app.requestLog };
  scope.get("/requests", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const requests = (await recentRequests(deps, user.account_id)).map((r) => ({
      ...r,
      outcome: outcomeOf(r),
      shortRoute: shortRoute(r.route),
    }));
    return reply.view("requests.eta", {
      title: "Requests",
      tab: "requests",
      requests,
      shown: RECENT_REQUESTS_SHOWN,
      days: REQUEST_LOG_DAYS,
    });
  });
}
