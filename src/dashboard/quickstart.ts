import { randomBytes } from "node:crypto";
import type { FastifyRequest } from "fastify";

// The quickstart shown beside a new key's secret: a call's start and end over
// REST and its start over gRPC, with this host and the real key, ready to
// paste into a shell. Each card gets call ids of its own, so running the
// commands as written works the first time (a call_id is used once).

export interface Quickstart {
  readonly start: string;
  readonly end: string;
  readonly grpc: string;
}

const CALLER = "+14155550123";

export function quickstartFor(request: FastifyRequest, secret: string): Quickstart {
  const origin = `${request.protocol}://${request.host}`;
  const callId = `quickstart-${randomBytes(4).toString("hex")}`;
  const auth = `-H "Authorization: Bearer ${secret}"`;
  const json = `-H 'Content-Type: application/json'`;
  const hints = `"identity_hints": {"ani": "${CALLER}"}`;
  const start = `{"call_id": "${callId}", ${hints}}`;
  // Two lines, as README writes it: the end's body is too wide for one.
  const end = `{"call_id": "${callId}", ${hints},\n       "intent": "billing_question", "intent_status": "open", "variables": {"preferred_name": "Ann"}}`;
  const grpcStart = `{"call_id": "${callId}-grpc", ${hints}}`;
  // gRPC over plain HTTP/2 (h2c) needs prior knowledge; over TLS, HTTP/2 is negotiated.
  const h2c = request.protocol === "http" ? " --http2-prior-knowledge" : "";
  return {
    start: [`curl -s -w '\\n' ${origin}/v1/calls/start \\`, `  ${auth} \\`, `  ${json} \\`, `  -d '${start}'`].join(
      "\n",
    ),
    end: [`curl -s -w '\\n' ${origin}/v1/calls/end \\`, `  ${auth} \\`, `  ${json} \\`, `  -d '${end}'`].join("\n"),
    grpc: [
      `buf curl --protocol grpc${h2c} \\`,
      `  ${auth} \\`,
      `  -d '${grpcStart}' \\`,
      `  ${origin}/callercontext.v1.CallerContextService/StartCall`,
    ].join("\n"),
  };
}
