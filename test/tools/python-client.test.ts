import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// proto/ compiles with the machine's protoc (>= 3.15 for proto3 `optional`)
// and gRPC's Python plugin, and the Python example runs against the server.
// .ci/run installs Debian's protoc, plugin and Python gRPC for this.

const run = promisify(execFile);
const PYTHON = "/usr/bin/python3";
const toolsPresent = [
  "/usr/bin/protoc",
  "/usr/bin/grpc_python_plugin",
  "/usr/include/google/protobuf/descriptor.proto",
  PYTHON,
].every((path) => existsSync(path));

describe.runIf(toolsPresent)("examples/python with the machine's protoc", () => {
  let server: TestServer;
  let out: string;

  beforeAll(async () => {
    server = await startTestServer();
    out = await mkdtemp(join(tmpdir(), "cc-python-"));
  });
  afterAll(async () => {
    await server.stop();
    await rm(out, { recursive: true, force: true });
  });

  test("generate.sh compiles proto/; the client does start → end → start over gRPC and reads a refusal's details", async () => {
    await run("examples/python/generate.sh", [out], { timeout: 30_000 });
    const { apiKey } = await createAccountWithKey(server.url);
    const { stdout } = await run(PYTHON, ["examples/python/client.py", new URL(server.url).host], {
      env: { ...process.env, PYTHONPATH: out, CALLER_CONTEXT_API_KEY: apiKey },
      timeout: 30_000,
    });
    const [first, second, intents, variables, refused, ...issues] = stdout.trim().split("\n");
    const customerRef = /^first start: (\S+) RECOMMENDATION_IGNORE$/.exec(first)?.[1];
    expect(customerRef, first).toBeDefined();
    expect(second).toMatch(new RegExp(`^second start: ${customerRef} RECOMMENDATION_(REUSE|CONFIRM)$`));
    expect(intents).toBe("open intents: ['billing_question']");
    expect(variables).toBe("variables: {'preferred_language': 'de'}");
    // The details of a refusal, read with what the example's README installs.
    expect(refused).toBe("refused: INVALID_ARGUMENT Validation failed");
    expect(issues.map((line) => line.trim())).toEqual(
      expect.arrayContaining([expect.stringMatching(/^call_id - /), expect.stringMatching(/^identity_hints - /)]),
    );
  });
});
