import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../helpers/test-server.ts";

// README's shell blocks, run as written against a real server: only the
// placeholders a reader fills in (acct_..., key_..., sk_test_..., the address)
// are replaced, each by what an earlier command of the same block printed.

const REPO = new URL("../../", import.meta.url).pathname;
const README = join(REPO, "README.md");
const BIN = join(REPO, "bin/caller-context");
const run = promisify(execFile);

let server: TestServer;
let workDir: string;

beforeAll(async () => {
  server = await startTestServer();
  workDir = await mkdtemp(join(tmpdir(), "cc-readme-"));
});
afterAll(async () => {
  await server.stop();
  await rm(workDir, { recursive: true, force: true });
});

/** The sh blocks under a README heading. */
async function shellBlocks(heading: string): Promise<string[]> {
  const readme = await readFile(README, "utf8");
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `README has a "## ${heading}" section`).toBeGreaterThan(-1);
  const section = readme.slice(start + 1).split(/\n## /)[0]!;
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** The `npx caller-context …` lines of a block, without their trailing comments. */
function cliLines(block: string): string[] {
  return block
    .split("\n")
    .filter((line) => line.startsWith("npx caller-context "))
    .map((line) => line.replace(/\s+#.*$/, "").replace(/^npx caller-context /, ""));
}

/** Runs one README line through the package's command, in a shell as a reader would. */
async function runCli(line: string) {
  const env = { ...process.env, CALLER_CONTEXT_URL: server.url, ADMIN_TOKEN };
  const { stdout } = await run("sh", ["-c", `"${BIN}" ${line}`], { env, cwd: workDir });
  return stdout;
}

describe("README", () => {
  test("every command under 'Accounts and keys' and 'Voice platforms' runs as written", async () => {
    const lines = [
      ...(await shellBlocks("Accounts and keys")).flatMap(cliLines),
      ...(await shellBlocks("Voice platforms")).flatMap(cliLines),
    ];
    expect(lines.length).toBeGreaterThanOrEqual(9);
    const filled: Record<string, string | undefined> = {};
    for (const line of lines) {
      const command = line
        .replace(/acct_\.\.\./g, filled.account ?? "acct_...")
        .replace(/key_\.\.\./g, filled.key ?? "");
      expect(command, `${line}: a placeholder is filled by an earlier command`).not.toMatch(/\.\.\.|\s$/);
      const printed = await runCli(command);
      filled.account ??= /^account\s+(acct_\S+)$/m.exec(printed)?.[1];
      filled.key ??= /^key\s+(key_\S+)$/m.exec(printed)?.[1];
    }
    expect(filled.account).toMatch(/^acct_/);
    expect(filled.key).toMatch(/^key_/);
    // Each command is a process of its own (about 2 s on a busy machine), run one after another.
  }, 120_000);

  test("the Examples block starts a call, ends it with the customer_ref the start returned, and checks health", async () => {
    const [block] = await shellBlocks("Examples");
    const account = JSON.parse(await runCli(`accounts create --name "Examples" --json`)).account_id;
    const key = JSON.parse(await runCli(`keys create --account ${account} --json`)).api_key;
    const script = block!
      .replace(/^KEY=sk_test_\.\.\..*$/m, `KEY=${key}`)
      .replaceAll("http://127.0.0.1:8080", server.url);
    expect(script).toContain(`KEY=${key}`);
    const { stdout } = await run("bash", ["-euo", "pipefail", "-c", script], { cwd: workDir });
    const [start, end, health] = stdout.split("\n").filter((line) => line.startsWith("{"));
    expect(JSON.parse(start!)).toMatchObject({ call_id: "call-0001", identity: { recommendation: "ignore" } });
    expect(JSON.parse(end!)).toMatchObject({
      call_id: "call-0001",
      customer_ref: JSON.parse(start!).customer_ref,
      intents_updated: 1,
      variables_updated: 1,
    });
    expect(JSON.parse(health!)).toMatchObject({ status: "healthy", database: "connected" });
  });
});
