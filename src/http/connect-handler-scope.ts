import { type Code, ConnectError } from "@connectrpc/connect";
import {
  createAsyncIterable,
  type UniversalHandler,
  type UniversalHandlerFn,
  type UniversalServerResponse,
} from "@connectrpc/connect/protocol";
import { codeFromHttpStatus, errorFromJsonBytes } from "@connectrpc/connect/protocol-connect";
import { enterMethod, protocolOf, requestScopeKey } from "../pipeline/request-scope.ts";

// Connect's own handler (the Connect protocol, gRPC-Web, and gRPC that is
// compressed or JSON) tells the request's scope which method it serves and
// what its client was answered, also when the call failed before the
// interceptors (a message that cannot be read).

export function withRequestScope(handler: UniversalHandler): UniversalHandler {
  const handle: UniversalHandlerFn = async (request) => {
    const scope = request.contextValues?.get(requestScopeKey);
    // Before the call runs: the interceptors (tracing) read the protocol from the scope.
    if (scope !== undefined) {
      enterMethod(scope, {
        protocol: protocolOf(request.header.get("content-type"), "connect"),
        method: handler.method,
      });
    }
    let response = await handler(request);
    if (scope !== undefined) {
      // A unary call has run to its status by the time the handler resolves.
      const grpcStatus = response.trailer?.get("grpc-status") ?? response.header?.get("grpc-status");
      if (grpcStatus != null) enterMethod(scope, { code: Number(grpcStatus) });
      else if (scope.code === undefined && response.status === 200) enterMethod(scope, { code: 0 });
      else if (scope.code === undefined) {
        // Refused before the interceptors: the Connect error body names the code.
        const body = await bytesOf(response.body);
        response = { ...response, body: body === undefined ? undefined : createAsyncIterable([body]) };
        enterMethod(scope, { code: connectCodeOf(response.status, body) });
      }
    }
    return response;
  };
  return Object.assign(handle, handler);
}

/** The code a Connect error body names; the HTTP status's, when it names none (a 415 has no body). */
function connectCodeOf(status: number, body: Uint8Array | undefined): Code {
  const fromStatus = new ConnectError("", codeFromHttpStatus(status));
  if (body === undefined) return fromStatus.code;
  try {
    return errorFromJsonBytes(body, undefined, fromStatus).code;
  } catch {
    return fromStatus.code;
  }
}

/** A unary error answer's body, in one piece (Connect sends it as one chunk). */
async function bytesOf(body: UniversalServerResponse["body"]): Promise<Uint8Array | undefined> {
  if (body === undefined) return undefined;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}
