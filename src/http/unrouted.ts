import type http2 from "node:http2";
import { Code } from "@connectrpc/connect";
import type { FastifyReply, FastifyRequest } from "fastify";
import { body, sendError } from "../pipeline/error-response.ts";
import { enterMethod, protocolOf } from "../pipeline/request-scope.ts";
import { scopeOf } from "./request-pipeline.ts";

// Requests no route takes, answered in the caller's own protocol: a gRPC
// client gets status UNIMPLEMENTED (its library cannot read a JSON 404), a
// method the host serves nowhere (CONNECT, TRACE, PUT…) gets 405, anything
// else the JSON 404.

const SERVED_METHODS = ["GET", "HEAD", "POST"];

export function answerUnrouted(request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split("?")[0];
  const protocol = protocolOf(request.headers["content-type"], "http");
  if (protocol === "grpc" || protocol === "grpc-web") {
    enterMethod(scopeOf(request.raw), { code: Code.Unimplemented });
    const status = {
      "grpc-status": String(Code.Unimplemented),
      "grpc-message": encodeURIComponent(`Method not found: ${path}`),
    };
    if (protocol === "grpc-web") {
      // gRPC-Web reads a status sent with the headers (a trailers-only response).
      return reply
        .code(200)
        .headers({ "content-type": "application/grpc-web+proto", ...status })
        .send();
    }
    // gRPC clients read the status from the trailers: written on the HTTP/2 stream directly.
    reply.hijack();
    const raw = reply.raw as unknown as http2.Http2ServerResponse;
    raw.writeHead(200, { "content-type": "application/grpc" });
    raw.addTrailers(status);
    raw.end();
    return;
  }
  if (!SERVED_METHODS.includes(request.method)) {
    return sendError(
      reply,
      body(405, `Method ${request.method} is not allowed`, {}, { allow: SERVED_METHODS.join(", ") }),
    );
  }
  return sendError(reply, body(404, `No route for ${request.method} ${path}`));
}
