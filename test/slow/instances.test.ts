import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Finished, runToExit } from "../helpers/run-to-exit.ts";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";
import { ADMIN_TOKEN, SECRETS_KEY } from "../helpers/test-server.ts";

// Instances on one host: a second one with the settings of the first either
// works or refuses to start with one line naming the setting to change and
// exit code 1, never a stack trace. On PostgreSQL when DATABASE_URL is set;
// otherwise each instance gets an embedded directory of its own.

const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
// Settings the tests name as "unset": empty means unset to the service.
const DEFAULTS = { PORT: "", METRICS_PORT: "", ADMIN_LISTEN: "", DATA_DIR: "", DATABASE_URL: "", REDIS_URL: "" };

let root: string;
let database: TestDatabase | undefined;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cc-instances-"));
  if (process.env.DATABASE_URL) database = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await database?.drop();
  await rm(root, { recursive: true, force: true });
});

/** The settings of one instance on the shared database, or on an embedded directory of its own. */
async function instanceEnv(name: string): Promise<Record<string, string>> {
  // A directory of its own either way: on PostgreSQL it holds the published admin address, not the repository's ./data.
  const dataDir = join(root, name);
  await mkdir(dataDir, { mode: 0o700 });
  if (database !== undefined) return { ...database.env, REDIS_URL: "", DATA_DIR: dataDir };
  return { DATABASE_URL: "", REDIS_URL: "", DATA_DIR: dataDir };
}

async function start(name: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess({ ...(await instanceEnv(name)), ADMIN_LISTEN: "", ...env });
  servers.push(server);
  return server;
}

/** The URL a started instance logged with `msg`. */
function loggedUrl(server: ServerProcess, msg: string): URL {
  for (const line of server.output) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line);
    if (entry.msg === msg) return new URL(entry.url);
  }
  throw new Error(`no "${msg}" line:\n${server.output.join("\n")}`);
}

/** A refused start: exit code 1 and exactly one line on standard error, which names `setting`. */
function expectOneLineRefusal(run: Finished, setting: string): void {
  const shown = `exit ${run.code}\nstderr:\n${run.stderr}\nstdout:\n${run.stdout}`;
  expect(run.code, shown).toBe(1);
  expect(run.stderr.endsWith("\n"), shown).toBe(true);
  expect(run.stderr.trimEnd().split("\n"), shown).toHaveLength(1);
  expect(run.stderr, shown).toMatch(new RegExp(`^caller-context: ${setting}: .*set ${setting} to `));
  expect(`${run.stderr}${run.stdout}`, shown).not.toMatch(/\n\s+at /);
}

describe("two instances on one host with default settings", () => {
  test("on the embedded database, the second is refused with one line naming DATA_DIR", async ({ annotate }) => {
    // Default settings, each in the same working directory: both would open ./data there.
    const cwd = join(root, "defaults");
    await mkdir(cwd, { mode: 0o700 });
    const env = { ...DEFAULTS, ADMIN_TOKEN, SECRETS_KEY, LOG_LEVEL: "info" };
    // The first takes ports the system picks: the host's default ports may be taken by someone else's service.
    const first = startServerProcess({ ...env, PORT: "0", METRICS_PORT: "0" }, { cwd });
    const server = await first;
    servers.push(server);
    const second = await runToExit([MAIN], env, 60_000, { cwd });
    expectOneLineRefusal(second, "DATA_DIR");
    expect(second.stderr).toContain(`data directory ${join(cwd, "data")} is in use by process ${server.pid}`);
    await annotate(second.stderr.trim());
  });

  test("with ports of their own, two instances both serve, each with its own admin listener", async () => {
    const [a, b] = await Promise.all([start("both-a"), start("both-b")]);
    for (const server of [a, b]) expect((await fetch(new URL("/v1/health", server.url))).status).toBe(200);
    const [adminA, adminB] = [loggedUrl(a, "admin API listening"), loggedUrl(b, "admin API listening")];
    expect(adminA.hostname).toBe("127.0.0.1");
    expect(adminA.port).not.toBe(adminB.port);
  });
});

describe("a port in use", () => {
  let first: ServerProcess;
  beforeAll(async () => {
    first = await start("taken", { ADMIN_LISTEN: "127.0.0.1:0" });
  });

  test("PORT: the second instance exits 1 with one line naming PORT", async ({ annotate }) => {
    const port = new URL(first.url).port;
    const run = await runToExit([MAIN], { ...(await instanceEnv("port")), PORT: port, METRICS_PORT: "0", ADMIN_TOKEN });
    expectOneLineRefusal(run, "PORT");
    expect(run.stderr).toContain(`127.0.0.1:${port}`);
    await annotate(run.stderr.trim());
  });

  test("METRICS_PORT: the second instance exits 1 with one line naming METRICS_PORT", async ({ annotate }) => {
    const port = loggedUrl(first, "metrics listening").port;
    const run = await runToExit([MAIN], {
      ...(await instanceEnv("metrics")),
      PORT: "0",
      METRICS_PORT: port,
      ADMIN_TOKEN,
    });
    expectOneLineRefusal(run, "METRICS_PORT");
    await annotate(run.stderr.trim());
  });

  test("ADMIN_LISTEN: the second instance exits 1 with one line naming ADMIN_LISTEN", async ({ annotate }) => {
    const taken = loggedUrl(first, "admin API listening").host;
    const run = await runToExit([MAIN], {
      ...(await instanceEnv("admin")),
      PORT: "0",
      METRICS_PORT: "0",
      ADMIN_LISTEN: taken,
      ADMIN_TOKEN,
    });
    expectOneLineRefusal(run, "ADMIN_LISTEN");
    await annotate(run.stderr.trim());
  });
});

describe("an unreadable DATA_DIR", () => {
  test("the start exits 1 with one line naming DATA_DIR", async ({ annotate }) => {
    const dataDir = join(root, "unreadable");
    await mkdir(dataDir, { mode: 0o700 });
    // Root reads whatever the mode says: then the service runs as nobody, to whom a root-owned 0700 is closed
    // (the checkout must be readable by others, as one under /work or /tmp is).
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      const probe = await runToExit(["-e", `require("node:fs").accessSync(${JSON.stringify(MAIN)}, 4)`], {}, 30_000, {
        user: { uid: 65534, gid: 65534 },
      });
      expect(probe.code, `node cannot run as nobody from this checkout: ${probe.stderr}`).toBe(0);
    }
    if (!asRoot) await chmod(dataDir, 0o000);
    const run = await runToExit(
      [MAIN],
      { DATABASE_URL: "", REDIS_URL: "", DATA_DIR: join(dataDir, "data"), PORT: "0", METRICS_PORT: "0", ADMIN_TOKEN },
      60_000,
      asRoot ? { user: { uid: 65534, gid: 65534 } } : {},
    );
    await chmod(dataDir, 0o700);
    expectOneLineRefusal(run, "DATA_DIR");
    expect(run.stderr).toContain("permission denied");
    await annotate(run.stderr.trim());
  });
});
