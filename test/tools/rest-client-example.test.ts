import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openApiDocument } from "../helpers/openapi-contract.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// examples/rest: a client typed from the OpenAPI document (tsc checks it
// against the generated types), run for real against the server.

const run = promisify(execFile);
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

test("the generated client types cover every path of the document", async () => {
  const generated = await readFile("examples/rest/caller-context-api.ts", "utf8");
  for (const path of Object.keys(openApiDocument.paths)) expect(generated).toContain(`"${path}": {`);
});

test("the REST example does start → end → start and the second start knows the caller", async () => {
  const { apiKey } = await createAccountWithKey(server.url);
  const { stdout } = await run(process.execPath, ["examples/rest/client.ts", server.url], {
    env: { ...process.env, CALLER_CONTEXT_API_KEY: apiKey },
    timeout: 30_000,
  });
  const [first, second, intents, variables] = stdout.trim().split("\n");
  const customerRef = /^first start: (\S+) ignore$/.exec(first)?.[1];
  expect(customerRef, first).toBeDefined();
  expect(second).toMatch(new RegExp(`^second start: ${customerRef} (reuse|confirm)$`));
  expect(intents).toBe("open intents: billing_question");
  expect(variables).toBe('variables: {"preferred_language":{"value":"de","source":null,"ttl_seconds":2592000}}');
});
