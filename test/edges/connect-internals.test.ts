import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { create } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextKey,
  createContextValues,
  createHandlerContext,
  createServiceImplSpec,
  type ServiceImpl,
} from "@connectrpc/connect";
import { compressedFlag, encodeEnvelope, invokeUnaryImplementation } from "@connectrpc/connect/protocol";
import {
  codeFromHttpStatus,
  codeToString,
  errorFromJsonBytes,
  errorToJsonBytes,
} from "@connectrpc/connect/protocol-connect";
import { findTrailerError, parseTimeout, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import * as grpc from "@grpc/grpc-js";
import { describe, expect, test } from "vitest";
import { ValidationFailureSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import { HealthService } from "../../gen/callercontext/v1/health_pb.ts";
import { grpcFrame, postGrpcBody } from "../helpers/raw-grpc.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// The host uses functions @connectrpc/connect marks "@private, does not
// follow semantic versioning" (src/http/grpc-unary.ts, rest-adapter.ts,
// connect-handler-scope.ts, src/pipeline/request-scope.ts) and
// reads Connect's wording of an unreadable message (unreadable-request.ts).
// The packages are pinned exactly; these tests fail when an upgrade changes
// what the host relies on, so the upgrade is made knowingly.

const CONNECT_PACKAGES = ["@connectrpc/connect", "@connectrpc/connect-node", "@connectrpc/connect-fastify"];

describe("@connectrpc packages are pinned to one exact version", () => {
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  test.each(CONNECT_PACKAGES)("%s: exact in package.json and installed at that version", (name) => {
    const pinned: string = manifest.dependencies[name];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    const installed = JSON.parse(
      readFileSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url), "utf8"),
    ).version;
    expect(installed).toBe(pinned);
  });
});

describe("the private functions behave as the host expects", () => {
  test("invokeUnaryImplementation runs the interceptors outermost first around the implementation", async () => {
    const order: string[] = [];
    const seen = createContextKey("unset");
    const implementation: ServiceImpl<typeof HealthService> = {
      check: async (_request, context) => {
        order.push(`implementation:${context.values.get(seen)}`);
        return { status: "healthy" };
      },
    };
    const spec = createServiceImplSpec(HealthService, implementation as never);
    const context = createHandlerContext({
      service: HealthService,
      method: HealthService.method.check,
      protocolName: "test",
      requestMethod: "POST",
      url: "/",
      requestSignal: new AbortController().signal,
      contextValues: createContextValues(),
    });
    const output = await invokeUnaryImplementation(
      spec.methods.check as never,
      context,
      create(HealthService.method.check.input, {}) as never,
      [
        (next) => async (req) => {
          order.push("outer");
          req.contextValues.set(seen, "set by outer");
          return next(req);
        },
        (next) => async (req) => {
          order.push("inner");
          return next(req);
        },
      ],
    );
    expect(order).toEqual(["outer", "inner", "implementation:set by outer"]);
    expect((output as unknown as { status: string }).status).toBe("healthy");
  });

  test("parseTimeout reads grpc-timeout in each unit and refuses a malformed one", () => {
    expect(parseTimeout(null, Number.MAX_SAFE_INTEGER)).toEqual({ timeoutMs: undefined });
    expect(parseTimeout("250m", Number.MAX_SAFE_INTEGER).timeoutMs).toBe(250);
    expect(parseTimeout("2S", Number.MAX_SAFE_INTEGER).timeoutMs).toBe(2000);
    expect(parseTimeout("1M", Number.MAX_SAFE_INTEGER).timeoutMs).toBe(60_000);
    expect(parseTimeout("5000u", Number.MAX_SAFE_INTEGER).timeoutMs).toBe(5);
    expect(parseTimeout("soon", Number.MAX_SAFE_INTEGER).error?.code).toBe(Code.InvalidArgument);
  });

  test("setTrailerStatus writes OK, or the code, message and typed details of an error", () => {
    expect(setTrailerStatus(new Headers(), undefined).get("grpc-status")).toBe("0");
    const error = new ConnectError("Validation failed", Code.InvalidArgument, undefined, [
      {
        desc: ValidationFailureSchema,
        value: create(ValidationFailureSchema, { issues: [{ path: ["call_id"], message: "Required" }] }),
      },
    ]);
    const trailer = setTrailerStatus(new Headers(), error);
    expect(trailer.get("grpc-status")).toBe(String(Code.InvalidArgument));
    expect(decodeURIComponent(trailer.get("grpc-message") ?? "")).toBe("Validation failed");
    const decoded = findTrailerError(trailer);
    expect(decoded?.findDetails(ValidationFailureSchema)[0].issues[0].path).toEqual(["call_id"]);
  });
});

describe("the private code and envelope helpers behave as the host expects", () => {
  test("codeToString names codes as the access log and metrics report them", () => {
    expect(codeToString(Code.InvalidArgument)).toBe("invalid_argument");
    expect(codeToString(Code.ResourceExhausted)).toBe("resource_exhausted");
    expect(codeToString(Code.Unavailable)).toBe("unavailable");
  });

  test("a Connect error body gives back its code; a status alone gives Connect's reading of it", () => {
    const body = errorToJsonBytes(new ConnectError("bad", Code.InvalidArgument), {});
    expect(errorFromJsonBytes(body, undefined, new ConnectError("", Code.Unknown)).code).toBe(Code.InvalidArgument);
    expect(codeFromHttpStatus(503)).toBe(Code.Unavailable);
    expect(codeFromHttpStatus(415)).toBe(Code.Unknown);
  });

  test("encodeEnvelope writes flags, a big-endian length and the message; compressedFlag is bit 0", () => {
    expect([...encodeEnvelope(0, new Uint8Array([7, 8]))]).toEqual([0, 0, 0, 0, 2, 7, 8]);
    expect(compressedFlag).toBe(1);
  });
});

describe("Connect's wording of an unreadable gRPC message is still recognised", () => {
  const fixture = useTestServer();
  const path = "/callercontext.v1.CallerContextService/StartCall";

  test.each([
    ["compressed bytes that are not protobuf (parse binary)", gzipSync(Buffer.from([0xff, 0xff, 0xff]))],
    ["bytes that are not gzip (decompression failed)", Buffer.from("not gzip at all")],
  ])("%s: INVALID_ARGUMENT, not INTERNAL", async (_name, payload) => {
    const answer = await postGrpcBody(
      fixture.server.url,
      path,
      grpcFrame(payload, { compressed: true }),
      { authorization: `Bearer ${fixture.apiKey}`, "grpc-encoding": "gzip" },
      5000,
    );
    expect(answer.code, answer.details).toBe(grpc.status.INVALID_ARGUMENT);
  });
});
