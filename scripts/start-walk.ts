import { readFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { CallerContextService } from "../gen/callercontext/v1/caller_context_pb.ts";
import { envToConfig } from "../src/config.ts";
import { startServer } from "../src/server.ts";
import { callUnary, createGrpcClient } from "../test/helpers/grpc-client.ts";

// The files of src/ a start runs through, from its edge to its INSERT: the
// server in this process, one start to warm each protocol, then V8's precise
// coverage of a second start alone, once over REST and once over gRPC.
// `node scripts/start-walk.ts` prints the REST start's files and their count,
// the gRPC start's count, and the files below the protocols' own entries that
// the REST start ran and the gRPC one did not (there should be none: every
// protocol shares one pipeline under its entry).

/** Where a protocol enters: the REST adapter and its JSON codec, the gRPC unary host. */
const PROTOCOL_ENTRIES = ["http/rest-adapter.ts", "http/json-codec.ts", "http/grpc-unary.ts"];

const ADMIN_TOKEN = "walk-admin-token-0123456789abcdefghij";
const config = envToConfig({
  PORT: "0",
  HOST: "127.0.0.1",
  DATA_DIR: ":memory:",
  ADMIN_TOKEN,
  // The account and key are created on the port the walk measures.
  ADMIN_LISTEN: "public",
  SECRETS_KEY: "dGVzdC1zZWNyZXRzLWtleS0wMTIzNDU2Nzg5YWJjZGU=",
  METRICS: "off",
  LOG_LEVEL: "silent",
});
const server = await startServer(config);
await server.ready;
const post = async (path: string, token: string, body: unknown) =>
  (
    await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    })
  ).json();
const { account } = await post("/admin/v1/accounts", ADMIN_TOKEN, { name: "walk" });
const key = await post(`/admin/v1/accounts/${account.account_id}/keys`, ADMIN_TOKEN, {});
const restStart = async (callId: string) => {
  await post("/v1/calls/start", key.api_key, { call_id: callId, identity_hints: { ani: "+14155550123" } });
};
const grpcClient = createGrpcClient(server.url);
const grpcStart = async (callId: string) => {
  const { error } = await callUnary(
    grpcClient,
    CallerContextService.method.startCall,
    { callId, identityHints: { ani: "+14155550123" } },
    { authorization: `Bearer ${key.api_key}` },
  );
  if (error) throw error;
};

const session = new Session();
session.connect();
await session.post("Profiler.enable");
const root = new URL("../src/", import.meta.url).href;

/** The files of src/ that `start` ran code of, after one start to warm it. */
async function walk(start: (callId: string) => Promise<void>, name: string): Promise<string[]> {
  await start(`walk-warm-${name}`);
  await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
  await session.post("Profiler.takePreciseCoverage");
  await start(`walk-measured-${name}`);
  const { result } = await session.post("Profiler.takePreciseCoverage");
  await session.post("Profiler.stopPreciseCoverage");
  return result
    .filter(
      (script) => script.url.startsWith(root) && script.functions.some((fn) => fn.ranges.some((r) => r.count > 0)),
    )
    .map((script) => script.url.slice(root.length))
    .sort();
}

/**
 * Whether `file` is a protocol entry or imports one, directly or not (the host that registers the entries,
 * the server): what runs there is the protocol's own way in, not the pipeline every protocol shares.
 */
function atOrAboveEntries(file: string, seen = new Set<string>()): boolean {
  if (PROTOCOL_ENTRIES.includes(file)) return true;
  if (seen.has(file)) return false;
  seen.add(file);
  const source = readFileSync(new URL(file, root), "utf8");
  const imported = [...source.matchAll(/from "(\.{1,2}\/[^"]+\.ts)"/g)].map(
    ([, path]) => new URL(path, new URL(file, root)).href,
  );
  return imported.some((url) => url.startsWith(root) && atOrAboveEntries(url.slice(root.length), seen));
}

const outsideDomain = (files: string[]) => files.filter((file) => !file.startsWith("domain/")).length;
const rest = await walk(restStart, "rest");
const grpc = await walk(grpcStart, "grpc");
console.log(rest.join("\n"));
console.log(`${rest.length} files of src/ ran for one REST start, ${outsideDomain(rest)} of them outside domain/`);
console.log(`${grpc.length} files of src/ ran for one gRPC start, ${outsideDomain(grpc)} of them outside domain/`);
const grpcFiles = new Set(grpc);
const restOnly = rest.filter((file) => !grpcFiles.has(file) && !atOrAboveEntries(file));
console.log(
  restOnly.length === 0
    ? "below the protocol entries, the gRPC start ran every file the REST start ran"
    : `below the protocol entries, ran for REST and not for gRPC:\n${restOnly.join("\n")}`,
);
grpcClient.close();
await server.close();
