import { describe, expect, test } from "vitest";
import { clientDeadline, earliest } from "../../src/pipeline/request-scope.ts";

// The client's own deadline as the admission control reads it from the headers.

describe("the client's deadline", () => {
  const at = 1_000_000;

  test("gRPC's grpc-timeout in its units", () => {
    expect(clientDeadline(new Headers({ "grpc-timeout": "250m" }), at)).toBe(at + 250);
    expect(clientDeadline(new Headers({ "grpc-timeout": "2S" }), at)).toBe(at + 2000);
  });

  test("the Connect protocol's connect-timeout-ms", () => {
    expect(clientDeadline(new Headers({ "connect-timeout-ms": "400" }), at)).toBe(at + 400);
  });

  test("none sent, or one that does not parse, is no deadline", () => {
    expect(clientDeadline(new Headers(), at)).toBeUndefined();
    expect(clientDeadline(new Headers({ "grpc-timeout": "soon" }), at)).toBeUndefined();
    expect(clientDeadline(new Headers({ "connect-timeout-ms": "-5" }), at)).toBeUndefined();
  });

  test("the earlier of two deadlines wins; a missing one gives way", () => {
    expect(earliest(5, 3)).toBe(3);
    expect(earliest(undefined, 3)).toBe(3);
    expect(earliest(5, undefined)).toBe(5);
    expect(earliest(undefined, undefined)).toBeUndefined();
  });
});
