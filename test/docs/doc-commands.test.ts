import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../helpers/test-server.ts";
import { blockName, documentedFiles, type ShellBlock, shellBlocksOf } from "./markdown-shell-blocks.ts";

// Every `sh` block of README.md and docs/ runs here as written, from the repository's directory as a reader runs
// them, once on the Node.js the machine has and once on the pinned Node 24. Only what a reader fills in is
// replaced: the placeholders (acct_..., key_..., int_..., sk_test_..., adm_..., <vapi assistant id>), each by what
// an earlier command printed; the address 127.0.0.1:8080, by the test server's; the directories a reader picks
// (./data-restored), by temporary ones. A block with no runner below fails the first test.

const REPO = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
const PINNED_BIN = join(REPO, "node_modules/.bin");
const run = promisify(execFile);

/** Blocks that are not run here, and why. */
const NOT_RUN: Record<string, string> = {
  "README.md#Test it": "it is the command that runs this file",
};

/** A PATH for each Node a reader may have first on theirs: the machine's own, and the pinned one. */
function pathVariants(): { node: string; path: string }[] {
  const machinePath = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir !== "" && !dir.includes("node_modules"))
    .join(delimiter);
  const versionOn = (path: string) =>
    execFileSync("node", ["-v"], { env: { ...process.env, PATH: path }, encoding: "utf8" }).trim();
  // The repository's own tools (buf) stay reachable, after the machine's Node.
  const machine = { path: `${machinePath}${delimiter}${PINNED_BIN}`, node: "" };
  const pinned = { path: `${PINNED_BIN}${delimiter}${machinePath}`, node: "" };
  machine.node = versionOn(machine.path);
  pinned.node = versionOn(pinned.path);
  return machine.node === pinned.node ? [pinned] : [machine, pinned];
}

function blocksUnder(file: string, heading: string): ShellBlock[] {
  const blocks = shellBlocksOf(REPO, file).filter((block) => block.heading === heading);
  expect(blocks.length, `${file} has an sh block under "${heading}"`).toBeGreaterThan(0);
  return blocks;
}

/** The `npx caller-context …` commands of a block, their trailing comments removed. */
function cliCommands(block: ShellBlock): string[] {
  return block.text
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .filter((line) => line.startsWith("npx caller-context "))
    .map((line) => line.replace(/\s+#.*$/, ""));
}

interface Shell {
  readonly env: NodeJS.ProcessEnv;
  readonly scratch: string;
}

async function sh(shell: Shell, script: string): Promise<string> {
  const { stdout } = await run("bash", ["-euo", "pipefail", "-c", script], {
    cwd: REPO,
    env: shell.env,
    timeout: 60_000,
  });
  return stdout;
}

/** Runs CLI commands in order, each placeholder filled by what an earlier one printed; what each printed. */
async function runCliCommands(
  shell: Shell,
  commands: string[],
): Promise<{ filled: Record<string, string | undefined>; printed: string[] }> {
  const filled: Record<string, string | undefined> = {};
  const outputs: string[] = [];
  for (const written of commands) {
    const command = written
      .replace(/acct_\.\.\./g, filled.account ?? "acct_...")
      .replace(/key_\.\.\./g, filled.key ?? "key_...")
      .replace(/int_\.\.\./g, filled.integration ?? "int_...")
      .replace(/http:\/\/127\.0\.0\.1:8080\/v1\/integrations\/wh_\.\.\./g, filled.webhookUrl ?? "wh_...")
      .replace(/<call id printed above>/g, filled.callId ?? "<call id>")
      .replace(/<vapi assistant id>/g, "asst-docs-0001")
      // An optional part, in brackets: a reader who needs no production integration leaves it out.
      .replace(/\s*\[[^\]]*\]/g, "");
    expect(command, `${written}: every placeholder is filled by an earlier command`).not.toMatch(/\.\.\.|</);
    const printed = await sh(shell, command);
    outputs.push(printed);
    filled.account ??= /^account\s+(acct_\S+)$/m.exec(printed)?.[1];
    filled.key ??= /^key\s+(key_\S+)$/m.exec(printed)?.[1];
    filled.integration ??= /^integration\s+(int_\S+)$/m.exec(printed)?.[1];
    filled.webhookUrl ??= /^webhook url\s+(\S+)$/m.exec(printed)?.[1];
    filled.callId ??= /^call id\s+(\S+)$/m.exec(printed)?.[1];
  }
  return { filled, printed: outputs };
}

/** `npm start` in a shell as written, until it says it is ready; its first-start secrets and address read off its output. */
async function startService(shell: Shell, command: string) {
  const child = spawn("bash", ["-c", command], { cwd: REPO, env: shell.env, detached: true });
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  let running = true;
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      running = false;
      resolve(code);
    }),
  );
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command}: not ready in 60 s:\n${output}`)), 60_000);
    child.stdout.on("data", () => {
      const url = /"url":"(http:\/\/[^"]+)","msg":"caller context ready"/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    });
    void exited.then((code) => reject(new Error(`${command} exited ${code}:\n${output}`)));
  });
  const url = await ready;
  return {
    url,
    output: () => output,
    /** SIGTERM to the whole group (npm and the service it started), as a supervisor stops it. */
    stop: async () => {
      if (running) process.kill(-(child as ChildProcess).pid!, "SIGTERM");
      return exited;
    },
  };
}

const variants = pathVariants();

describe("docs' commands", () => {
  test("every sh block of README.md and docs/ has a runner in this file, or a reason not to run", () => {
    const runners = new Set([
      "README.md#Run it",
      "README.md#One call",
      "docs/operations.md#Backups",
      "docs/cli.md#Accounts and keys",
      "docs/cli.md#Voice platforms",
      "docs/integrations.md#Voice-platform integrations",
      "docs/integrations.md#Trying it locally: `caller-context simulate`",
      "docs/api.md#Reading an error's details",
      "docs/tools.md#Tools: gRPC reflection, health checks, OpenAPI, metrics, tracing",
    ]);
    const blocks = documentedFiles(REPO).flatMap((file) => shellBlocksOf(REPO, file));
    const unclaimed = blocks.map(blockName).filter((name) => !runners.has(name) && !(name in NOT_RUN));
    expect(unclaimed, "sh blocks nothing here runs").toEqual([]);
  });
});

describe.each(variants)("docs' commands with node $node first on PATH", ({ path }) => {
  let server: TestServer;
  let shell: Shell;

  beforeAll(async () => {
    server = await startTestServer();
    const scratch = await mkdtemp(join(tmpdir(), "cc-doc-commands-"));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: path,
      CALLER_CONTEXT_URL: server.url,
      ADMIN_TOKEN,
      // `caller-context migrate` on the embedded database: a directory of the test's own, never the checkout's ./data.
      DATA_DIR: join(scratch, "data"),
    };
    for (const name of ["npm_config_prefix", "NODE_OPTIONS", "VITEST", "VITEST_WORKER_ID", "VITEST_POOL_ID"]) {
      delete env[name];
    }
    shell = { env, scratch };
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    if (shell) await rm(shell.scratch, { recursive: true, force: true });
  });

  test("README's Run it starts the service, and docs/operations.md's Backups backs it up and restores it", async () => {
    const [runIt] = blocksUnder("README.md", "Run it");
    const commands = runIt!.text.trim().split(/\s*&&\s*/);
    expect(commands).toEqual(["npm install", "npm start"]);
    // `npm install` is what .ci/run (and whoever runs this suite) has run in this checkout already; running it
    // again here would rewrite node_modules under the other test files running beside this one.
    const dataDir = join(shell.scratch, "run-it-data");
    const own: Shell = {
      scratch: shell.scratch,
      env: {
        ...shell.env,
        DATA_DIR: dataDir,
        BACKUP_DIR: join(shell.scratch, "backups"),
        PORT: "0",
        METRICS_PORT: "0",
      },
    };
    for (const name of ["DATABASE_URL", "REDIS_URL", "ADMIN_TOKEN", "CALLER_CONTEXT_URL", "ADMIN_LISTEN"]) {
      delete own.env[name];
    }
    const service = await startService(own, "npm start");
    try {
      const token = /ADMIN_TOKEN=(adm_\S+)/.exec(service.output())?.[1];
      expect(token, "the first start prints the admin token").toMatch(/^adm_/);
      expect(service.output()).toMatch(/API key:\s+sk_test_\S+/);

      const [backups] = blocksUnder("docs/operations.md", "Backups");
      const lines = backups!.text.split("\n").map((line) => line.replace(/\s+#.*$/, ""));
      expect(lines[0]).toBe("npx caller-context backup");
      // The CLI finds the running service's admin API through DATA_DIR/admin-url, with the printed token.
      const cli: Shell = { scratch: shell.scratch, env: { ...own.env, ADMIN_TOKEN: token } };
      const printed = await sh(cli, lines[0]!);
      const file = /(\/\S+caller-context-\S+\.tar\.gz)/.exec(printed)?.[1];
      expect(file, `backup prints its file: ${printed}`).toBeDefined();
      const restoredDir = join(shell.scratch, "data-restored");
      const restore = lines[1]!
        .replace(/\.\/backups\/caller-context-\S+\.tar\.gz/, file!)
        .replace("./data-restored", restoredDir);
      expect(restore).toBe(`npx caller-context restore ${file} --data-dir ${restoredDir}`);
      expect(await sh(cli, restore)).toMatch(/restored/i);
      await service.stop();

      const restart = lines[2]!.replace("./data-restored", restoredDir);
      expect(restart).toBe(`DATA_DIR=${restoredDir} npm start`);
      const restored = await startService(own, restart);
      try {
        const health = await fetch(`${restored.url}/v1/health`);
        expect(health.status).toBe(200);
        // The restored data is the first start's: no new secrets printed.
        expect(restored.output()).not.toContain("First start");
      } finally {
        await restored.stop();
      }
    } finally {
      await service.stop();
    }
  }, 180_000);

  test("README's One call starts a call, ends it with the customer_ref the start returned, and checks health", async () => {
    const [block] = blocksUnder("README.md", "One call");
    const account = JSON.parse(
      await sh(shell, `npx caller-context accounts create --name "One call" --json`),
    ).account_id;
    const key = JSON.parse(await sh(shell, `npx caller-context keys create --account ${account} --json`)).api_key;
    const script = block!.text
      .replace(/^KEY=sk_test_\.\.\..*$/m, `KEY=${key}`)
      .replaceAll("http://127.0.0.1:8080", server.url);
    expect(script).toContain(`KEY=${key}`);
    const stdout = await run("bash", ["-euo", "pipefail", "-c", script], { cwd: shell.scratch, env: shell.env });
    const [start, end, health] = stdout.stdout.split("\n").filter((line) => line.startsWith("{"));
    expect(JSON.parse(start!)).toMatchObject({ call_id: "call-0001", identity: { recommendation: "ignore" } });
    expect(JSON.parse(end!)).toMatchObject({
      call_id: "call-0001",
      customer_ref: JSON.parse(start!).customer_ref,
      intents_updated: 1,
      variables_updated: 1,
    });
    expect(JSON.parse(health!)).toMatchObject({ status: "healthy", database: "connected" });
  }, 60_000);

  test("docs/cli.md's commands run as written", async () => {
    const commands = [
      ...blocksUnder("docs/cli.md", "Accounts and keys").flatMap(cliCommands),
      ...blocksUnder("docs/cli.md", "Voice platforms").flatMap(cliCommands),
    ];
    expect(commands.length).toBeGreaterThanOrEqual(10);
    const { filled } = await runCliCommands(shell, commands);
    expect(filled.account).toMatch(/^acct_/);
    expect(filled.key).toMatch(/^key_/);
  }, 120_000);

  test("docs/integrations.md creates, lists and deletes an integration as written", async () => {
    const commands = blocksUnder("docs/integrations.md", "Voice-platform integrations").flatMap(cliCommands);
    const account = JSON.parse(await sh(shell, `npx caller-context accounts create --name "Integrations" --json`));
    const { filled } = await runCliCommands(shell, [
      `npx caller-context accounts set-tier ${account.account_id} starter`,
      ...commands.map((command) => command.replace(/acct_\.\.\./g, account.account_id)),
    ]);
    expect(filled.integration).toMatch(/^int_/);
    const listed = JSON.parse(
      await sh(shell, `npx caller-context integrations list --account ${account.account_id} --json`),
    );
    expect(listed.integrations, "the block's last command deleted what its first created").toEqual([]);
  }, 60_000);

  test("docs/integrations.md's simulate block saves a call and hears it back on the next inbound", async () => {
    const commands = blocksUnder("docs/integrations.md", "Trying it locally: `caller-context simulate`").flatMap(
      cliCommands,
    );
    expect(commands.length).toBe(4);
    const account = JSON.parse(await sh(shell, `npx caller-context accounts create --name "Simulate" --json`));
    const { printed } = await runCliCommands(
      shell,
      commands.map((command) => command.replace(/acct_\.\.\./g, account.account_id)),
    );
    expect(printed[3]).toContain('"open_intents": "plan_change (1 attempt)"');
    expect(printed[3]).toContain('"var_plan": "gold"');
    expect(printed[3]).toContain('"last_call_summary": "The caller moved to the gold plan."');
  }, 60_000);

  test("docs/api.md's and docs/tools.md's buf curl commands answer as the docs show", async () => {
    const account = JSON.parse(
      await sh(shell, `npx caller-context accounts create --name "buf curl" --json`),
    ).account_id;
    const key = JSON.parse(await sh(shell, `npx caller-context keys create --account ${account} --json`)).api_key;
    const withKey: Shell = { ...shell, env: { ...shell.env, KEY: key } };
    const fill = (block: ShellBlock) => block.text.replaceAll("http://127.0.0.1:8080", server.url);

    const [details] = blocksUnder("docs/api.md", "Reading an error's details");
    const refused = await run("bash", ["-c", fill(details!)], { cwd: REPO, env: withKey.env }).catch(
      (error: { stdout: string; stderr: string }) => error,
    );
    expect(`${refused.stdout}${refused.stderr}`).toMatch(/invalid_argument/);
    expect(`${refused.stdout}${refused.stderr}`).toMatch(/call_id/);

    const tools = blocksUnder("docs/tools.md", "Tools: gRPC reflection, health checks, OpenAPI, metrics, tracing");
    const printed = await sh(withKey, fill(tools[0]!));
    expect(printed).toContain("callercontext.v1.CallerContextService");
    expect(printed).toMatch(/"customerRef"|"customer_ref"/);
  }, 60_000);
});
