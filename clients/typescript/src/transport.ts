import { Agent } from "node:http";
import type { Interceptor, Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";

/** `connect`: the Connect protocol over HTTP/1.1 (works through any HTTP proxy); `grpc`: gRPC over HTTP/2. */
export type Protocol = "connect" | "grpc";

export interface ClosableTransport {
  readonly transport: Transport;
  /** Closes the connections the transport keeps open. */
  close(): void;
}

export function createTransport(options: {
  baseUrl: string;
  apiKey: string;
  protocol: Protocol;
  interceptors: readonly Interceptor[];
}): ClosableTransport {
  const interceptors = [bearer(options.apiKey), ...options.interceptors];
  if (options.protocol === "grpc") {
    const sessionManager = new Http2SessionManager(options.baseUrl);
    return {
      transport: createGrpcTransport({ baseUrl: options.baseUrl, sessionManager, interceptors }),
      close: () => sessionManager.abort(),
    };
  }
  const agent = new Agent({ keepAlive: true });
  return {
    transport: createConnectTransport({
      baseUrl: options.baseUrl,
      httpVersion: "1.1",
      nodeOptions: { agent },
      interceptors,
    }),
    close: () => agent.destroy(),
  };
}

function bearer(apiKey: string): Interceptor {
  return (next) => (req) => {
    req.header.set("authorization", `Bearer ${apiKey}`);
    return next(req);
  };
}
