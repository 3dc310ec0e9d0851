import { Session } from "node:inspector/promises";
import { envToConfig } from "../src/config.ts";
import { startServer } from "../src/server.ts";

// The files of src/ a start runs through, from the REST edge to its INSERT: the
// server in this process, one start to warm it, then V8's precise coverage of a
// second start alone. `node scripts/start-walk.ts` prints them and their count.

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
const start = (callId: string) =>
  post("/v1/calls/start", key.api_key, { call_id: callId, identity_hints: { ani: "+14155550123" } });
await start("walk-warm");

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
await session.post("Profiler.takePreciseCoverage");
await start("walk-measured");
const { result } = await session.post("Profiler.takePreciseCoverage");
await session.post("Profiler.stopPreciseCoverage");
const root = new URL("../src/", import.meta.url).href;
const files = result
  .filter((script) => script.url.startsWith(root) && script.functions.some((fn) => fn.ranges.some((r) => r.count > 0)))
  .map((script) => script.url.slice(root.length))
  .sort();
console.log(files.join("\n"));
const outsideDomain = files.filter((file) => !file.startsWith("domain/")).length;
console.log(`${files.length} files of src/ ran for one start, ${outsideDomain} of them outside domain/`);
await server.close();
