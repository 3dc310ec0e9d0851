import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { SAMPLE_REF, SAMPLE_SETUPS, SAMPLE_URL } from "./sample-setups.ts";

// docs/samples: a curl, a TypeScript and a Python example for every public route, shown at /docs. Each curl and
// TypeScript example runs here against a live service, as written but for the address and the customer refs,
// which become the service's and real customers' (clients/python/tests/test_docs_samples.py runs the Python ones).
// The TypeScript ones import the built @caller-context/client (`npm run build:clients`), as a user's code would.

const REPO = new URL("../../", import.meta.url).pathname;
const SAMPLES = join(REPO, "docs/samples");
// Inside the repository, so that `@caller-context/client` resolves from node_modules as it does for a user.
const RUNS = join(REPO, "test-results/samples");
const run = promisify(execFile);

let server: TestServer;

beforeAll(async () => {
  if (!existsSync(join(REPO, "clients/typescript/dist/index.js"))) {
    throw new Error("the TypeScript examples import the built client: run `npm run build:clients` first");
  }
  server = await startTestServer();
  await mkdir(RUNS, { recursive: true });
});
afterAll(async () => {
  await server?.stop();
  await rm(RUNS, { recursive: true, force: true });
});

interface PublicOperation {
  readonly operationId: string;
  readonly samples: { lang: string; source: string }[];
}

async function publicOperations(): Promise<PublicOperation[]> {
  const document = JSON.parse(await readFile(join(REPO, "gen/openapi.json"), "utf8"));
  const operations: PublicOperation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
    // The routes a developer calls: /v1 but the platforms' webhooks, which `caller-context simulate` sends.
    if (!path.startsWith("/v1/") || path.startsWith("/v1/integrations/")) continue;
    for (const operation of Object.values(item)) {
      operations.push({ operationId: operation.operationId, samples: operation["x-codeSamples"] ?? [] });
    }
  }
  return operations;
}

/** A sample as a user runs it against this test's service, with the customers its setup made. */
function filled(source: string, refs: readonly string[]): string {
  let text = source.replaceAll(SAMPLE_URL, server.url);
  refs.forEach((ref, index) => {
    text = text.replaceAll(SAMPLE_REF[index]!, ref);
  });
  return text;
}

async function prepare(operationId: string) {
  const { apiKey } = await createAccountWithKey(server.url);
  const refs = await SAMPLE_SETUPS[operationId]!({
    start: async (callId, ani) => {
      const started = await post(server.url, "/v1/calls/start", apiKey, { call_id: callId, identity_hints: { ani } });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      return started.body.customer_ref as string;
    },
    forgetMe: async (ref) => {
      const forgotten = await post(server.url, `/v1/customers/${ref}/forget-me`, apiKey, {});
      expect(forgotten.status).toBe(200);
    },
  });
  return { env: { ...process.env, CALLER_CONTEXT_API_KEY: apiKey }, refs };
}

const operations = await publicOperations();

describe("docs/samples", () => {
  test("every public route has a curl, a TypeScript and a Python example in the OpenAPI document", async () => {
    expect(operations.length).toBeGreaterThanOrEqual(12);
    const missing = operations
      .filter((operation) => operation.samples.map((sample) => sample.lang).join() !== "Shell,TypeScript,Python")
      .map((operation) => operation.operationId);
    expect(missing, "operations without the three samples").toEqual([]);
    const files = (await readdir(SAMPLES)).map((name) => name.replace(/\.\w+$/, ""));
    const unknown = [...new Set(files)].filter((name) => !operations.some((op) => op.operationId === name));
    expect(unknown, "samples named after no operation").toEqual([]);
    expect(Object.keys(SAMPLE_SETUPS).sort()).toEqual(operations.map((operation) => operation.operationId).sort());
  });

  test("/docs serves them: the document behind the page carries each sample", async () => {
    const served = await (await fetch(`${server.url}/v1/openapi.json`)).json();
    const start = served.paths["/v1/calls/start"].post;
    expect(start["x-codeSamples"].map((sample: { label: string }) => sample.label)).toEqual([
      "curl",
      "TypeScript",
      "Python",
    ]);
    expect(start.description).toContain("```python\nimport os");
  });

  test.each(operations)(
    "$operationId: the curl example answers 200 as the docs show",
    async ({ operationId, samples }) => {
      const { env, refs } = await prepare(operationId);
      const curl = samples.find((sample) => sample.lang === "Shell")!.source;
      const { stdout } = await run("bash", ["-euo", "pipefail", "-c", filled(curl, refs)], { env });
      const answer = JSON.parse(stdout);
      expect(answer, stdout).not.toHaveProperty("error");
    },
  );

  test.each(operations)("$operationId: the TypeScript example runs", async ({ operationId, samples }) => {
    const { env, refs } = await prepare(operationId);
    const file = join(RUNS, `${operationId}.ts`);
    await writeFile(file, filled(samples.find((sample) => sample.lang === "TypeScript")!.source, refs));
    const { stdout } = await run(join(REPO, "node_modules/.bin/node"), [file], { env, cwd: REPO });
    expect(stdout.trim()).not.toBe("");
  });
});
