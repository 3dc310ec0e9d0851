import type { UniversalHandler, UniversalHandlerFn } from "@connectrpc/connect/protocol";
import { codeName } from "./code-names.ts";
import type { Protocol } from "./request-observers.ts";
import { requestScopeKey } from "./request-pipeline.ts";

// Connect's own handler (the Connect protocol, gRPC-Web, and gRPC that is
// compressed or JSON) tells the request's scope which method it serves and
// what its client was answered, also when the call failed before the
// interceptors (a message that cannot be read).

/** Connect's HTTP statuses back to codes, for failures that never reached the interceptors. */
const CODE_BY_STATUS: Record<number, number> = {
  400: 3, // invalid_argument
  401: 16,
  403: 7,
  404: 12, // unimplemented: Connect answers an unknown method so
  408: 4,
  409: 10,
  412: 9,
  413: 8,
  415: 3,
  416: 11,
  429: 8,
  499: 1,
  501: 12,
  503: 14,
  504: 4,
};

export function withRequestScope(handler: UniversalHandler): UniversalHandler {
  const service = handler.service.typeName;
  const method = handler.method.name;
  const handle: UniversalHandlerFn = async (request) => {
    const scope = request.contextValues?.get(requestScopeKey);
    const response = await handler(request);
    if (scope !== undefined) {
      scope.protocol = protocolOf(request.header.get("content-type"));
      scope.service = service;
      scope.method = method;
      // A unary call has run to its status by the time the handler resolves.
      const grpcStatus = response.trailer?.get("grpc-status") ?? response.header?.get("grpc-status");
      if (grpcStatus != null) scope.code = codeName(Number(grpcStatus));
      else if (scope.code === undefined)
        scope.code = codeName(response.status === 200 ? 0 : (CODE_BY_STATUS[response.status] ?? 2));
    }
    return response;
  };
  return Object.assign(handle, handler);
}

function protocolOf(contentType: string | null): Protocol {
  if (contentType?.startsWith("application/grpc-web")) return "grpc-web";
  if (contentType?.startsWith("application/grpc")) return "grpc";
  return "connect";
}
