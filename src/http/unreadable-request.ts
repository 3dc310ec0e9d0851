import type { UniversalHandler, UniversalHandlerFn } from "@connectrpc/connect/protocol";

// Connect answers a gRPC request whose message cannot be read (bytes that are
// not the method's protobuf, a compressed frame it cannot inflate) with
// INTERNAL, the status of a server fault that clients retry. The fault is the
// request's: it is reported as INVALID_ARGUMENT, as the REST host answers
// malformed JSON with 400. Connect's own wording is the only sign of it.

const UNREADABLE = [/^parse binary:/, /^received compressed envelope/, /^decompression failed/];
const GRPC_INTERNAL = "13";
const GRPC_INVALID_ARGUMENT = "3";

export function withUnreadableAsInvalidArgument(handler: UniversalHandler): UniversalHandler {
  const handle: UniversalHandlerFn = async (request) => {
    const response = await handler(request);
    // A unary call has run to its status by the time the handler resolves.
    const trailer = response.trailer;
    if (trailer?.get("grpc-status") === GRPC_INTERNAL) {
      const message = decodeURIComponent(trailer.get("grpc-message") ?? "");
      if (UNREADABLE.some((pattern) => pattern.test(message))) trailer.set("grpc-status", GRPC_INVALID_ARGUMENT);
    }
    return response;
  };
  return Object.assign(handle, handler);
}
