import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { request } from "../helpers/rest-client.ts";
import { type Finished, runToExit } from "../helpers/run-to-exit.ts";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.ts";

// One process per embedded data directory: a second server, or a CLI command
// that opens the directory, is refused at once while the first keeps serving;
// the lock ends with its holder, kill -9 included.

let dataDir: string;
let env: Record<string, string>;
const servers: ServerProcess[] = [];
const seen = {
  second: undefined as Finished | undefined,
  migrate: undefined as Finished | undefined,
  firstHealthAfter: 0,
  firstPid: 0,
  takeover: undefined as { health: number; afterMs: number } | undefined,
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "cc-lock-"));
  env = { DATABASE_URL: "", REDIS_URL: "", DATA_DIR: dataDir };
  const first = await startServerProcess(env);
  servers.push(first);
  seen.firstPid = first.pid;
  seen.second = await runToExit(["src/main.ts"], { ...env, PORT: "0", LOG_LEVEL: "info" });
  seen.migrate = await runToExit(["src/cli/main.ts", "migrate"], env);
  seen.firstHealthAfter = (await request(first.url, "GET", "/v1/health")).status;

  first.kill("SIGKILL");
  await first.exited;
  const killedAt = performance.now();
  const next = await startServerProcess(env);
  servers.push(next);
  seen.takeover = {
    health: (await request(next.url, "GET", "/v1/health")).status,
    afterMs: performance.now() - killedAt,
  };
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await rm(dataDir, { recursive: true, force: true });
});

describe("a second opener of a data directory in use", () => {
  test("a second server exits 1 at once with one line naming the directory and the holder's pid", () => {
    expect(seen.second?.code).toBe(1);
    expect(seen.second?.stderr).toBe(
      `caller-context: DATA_DIR: data directory ${dataDir} is in use by process ${seen.firstPid}; only one process may open it: ` +
        "set DATA_DIR to another directory, or DATABASE_URL to a PostgreSQL database the instances share\n",
    );
    // It never opened a port: nothing was logged as listening.
    expect(seen.second?.stdout).not.toContain("caller context listening");
  });

  test("caller-context migrate is refused the same way", () => {
    expect(seen.migrate?.code).toBe(1);
    expect(seen.migrate?.stderr).toBe(
      `caller-context: DATA_DIR: data directory ${dataDir} is in use by process ${seen.firstPid}; only one process may open it: ` +
        "set DATA_DIR to another directory, or DATABASE_URL to a PostgreSQL database the instances share\n",
    );
  });

  test("the first server keeps serving", () => {
    expect(seen.firstHealthAfter).toBe(200);
  });
});

test("after kill -9 of the holder, the next server takes the directory over at once", async ({ annotate }) => {
  expect(seen.takeover?.health).toBe(200);
  await annotate(`reopened and healthy ${Math.round(seen.takeover?.afterMs ?? 0)} ms after the holder was killed`);
});
