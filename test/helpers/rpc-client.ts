import { type DescMethodUnary, getOption } from "@bufbuild/protobuf";
import { route } from "../../gen/callercontext/v1/options_pb.ts";
import { decodeMessage, encodeMessage, type JsonIssue } from "../../src/http/json-codec.ts";
import { type CallOutcome, grpcErrorBody, grpcOutcomeStatus, type Transport } from "./call-client.ts";
import { callUnary, createGrpcClient } from "./grpc-client.ts";
import { request } from "./rest-client.ts";

// Any RPC with a REST route, over REST (path parameters filled in, the other
// fields in the query string for GET and DELETE, in the body for POST) or
// over gRPC, with one shape of outcome.

export interface RpcClient {
  call(via: Transport, method: DescMethodUnary, apiKey: string | undefined, fields?: object): Promise<CallOutcome>;
  close(): void;
}

export function createRpcClient(baseUrl: string): RpcClient {
  const client = createGrpcClient(baseUrl);
  return {
    async call(via, method, apiKey, fields = {}) {
      if (via === "rest") {
        const { method: httpMethod, path } = getOption(method, route);
        const rest: Record<string, unknown> = { ...fields };
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
          const value = encodeURIComponent(String(rest[name]));
          delete rest[name];
          return value;
        });
        const withQuery = httpMethod === "POST" ? url : `${url}?${new URLSearchParams(rest as Record<string, string>)}`;
        const res = await request(baseUrl, httpMethod, withQuery, {
          token: apiKey,
          body: httpMethod === "POST" ? rest : undefined,
        });
        return { status: res.status, headers: Object.fromEntries(res.headers), body: res.body };
      }
      const issues: JsonIssue[] = [];
      // gRPC clients cannot send a field the proto lacks: such a case is REST only.
      const message = decodeMessage(method.input, fields, issues);
      if (issues.length > 0) throw new Error(`test fields do not fit the proto: ${JSON.stringify(issues)}`);
      const metadata: Record<string, string> = apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` };
      const { response, error, metadata: received } = await callUnary(client, method, message as never, metadata);
      return {
        status: grpcOutcomeStatus(error),
        headers: received,
        body: error === undefined ? encodeMessage(method.output, response as never) : grpcErrorBody(error),
        grpcError: error,
      };
    },
    close: () => client.close(),
  };
}
