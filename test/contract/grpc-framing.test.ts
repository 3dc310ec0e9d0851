import http2 from "node:http2";
import { setTimeout as sleep } from "node:timers/promises";
import { create, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { StartCallRequestSchema } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { blockDatabase } from "../helpers/database-blocker.ts";
import { grpcFrame } from "../helpers/raw-grpc.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// How a gRPC answer is framed on the wire, read from a bare HTTP/2 stream: an
// answer with a message is HEADERS, DATA, then trailers carrying the status;
// an answer without one (an error, a refusal) is gRPC's Trailers-Only form, a
// single HEADERS frame with the status that ends the stream.

let server: TestServer;
let key: string;
let accountId: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ apiKey: key, accountId } = await createAccountWithKey(server.url));
});
afterAll(() => server.stop());

interface Framed {
  readonly headers: http2.IncomingHttpHeaders;
  readonly headersEndStream: boolean;
  readonly dataBytes: number;
  readonly trailers?: http2.IncomingHttpHeaders;
}

/** One StartCall over a fresh h2c session, with every frame the answer came in. */
async function startCallFramed(headers: Record<string, string>, callId: string): Promise<Framed> {
  const session = http2.connect(server.url);
  session.on("error", () => {});
  try {
    const message = toBinary(
      StartCallRequestSchema,
      create(StartCallRequestSchema, { callId, identityHints: { ani: "+14155550188" } }),
    );
    return await new Promise<Framed>((resolve, reject) => {
      const stream = session.request({
        ":method": "POST",
        ":path": "/callercontext.v1.CallerContextService/StartCall",
        "content-type": "application/grpc",
        te: "trailers",
        ...headers,
      });
      let response: Pick<Framed, "headers" | "headersEndStream"> | undefined;
      let dataBytes = 0;
      let trailers: http2.IncomingHttpHeaders | undefined;
      stream.on("response", (received, flags) => {
        response = { headers: received, headersEndStream: (flags & http2.constants.NGHTTP2_FLAG_END_STREAM) !== 0 };
      });
      stream.on("data", (chunk: Buffer) => {
        dataBytes += chunk.length;
      });
      stream.on("trailers", (received) => {
        trailers = received;
      });
      stream.on("error", reject);
      stream.on("close", () => {
        if (response === undefined) reject(new Error(`no response (code ${stream.rstCode})`));
        else resolve({ ...response, dataBytes, trailers });
      });
      stream.end(grpcFrame(Buffer.from(message)));
    });
  } finally {
    session.close();
  }
}

describe("gRPC answers on the wire", () => {
  test("an error is Trailers-Only: one HEADERS frame with the status, ending the stream", async () => {
    const answer = await startCallFramed({}, "framing-unauthenticated");
    expect(answer.headers[":status"]).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/grpc+proto");
    expect(answer.headers["grpc-status"]).toBe("16");
    expect(decodeURIComponent(String(answer.headers["grpc-message"]))).toBe("Invalid or missing API key");
    expect(answer.headersEndStream).toBe(true);
    expect(answer.dataBytes).toBe(0);
    expect(answer.trailers).toBeUndefined();
  });

  test("an answer with a message is HEADERS, DATA, then the status in trailers", async () => {
    const answer = await startCallFramed({ authorization: `Bearer ${key}` }, "framing-ok");
    expect(answer.headers[":status"]).toBe(200);
    expect(answer.headers["grpc-status"]).toBeUndefined();
    expect(answer.headersEndStream).toBe(false);
    expect(answer.dataBytes).toBeGreaterThan(5);
    expect(answer.trailers?.["grpc-status"]).toBe("0");
  });
});

describe("a stream the client resets while its call is held up", () => {
  test("is answered no more, and the service goes on answering", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const block = await blockDatabase(server, accountId, 300);
      const session = http2.connect(server.url);
      session.on("error", () => {});
      const stream = session.request({
        ":method": "POST",
        ":path": "/callercontext.v1.CallerContextService/StartCall",
        "content-type": "application/grpc",
        te: "trailers",
        authorization: `Bearer ${key}`,
      });
      stream.on("error", () => {});
      const message = toBinary(
        StartCallRequestSchema,
        create(StartCallRequestSchema, { callId: "framing-reset", identityHints: { ani: "+14155550188" } }),
      );
      stream.end(grpcFrame(Buffer.from(message)));
      await sleep(50);
      stream.close(http2.constants.NGHTTP2_CANCEL);
      await block.lifted;
      session.close();
      // Long enough for the held call to finish its work and try to answer the stream that is gone.
      await sleep(200);
      const after = await startCallFramed({ authorization: `Bearer ${key}` }, "framing-after-reset");
      expect(after.trailers?.["grpc-status"]).toBe("0");
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
