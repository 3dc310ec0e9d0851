import { chmod, lstat, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { useNewProcessUmask } from "../helpers/process-umask.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { runToExit } from "../helpers/run-to-exit.ts";
import { ADMIN_TOKEN, startTestServer } from "../helpers/test-server.ts";

// The embedded database's files on the real file system: only the service's
// user may read or write them, and a directory open to others is refused.

useNewProcessUmask();
const EMBEDDED = { DATABASE_URL: "", REDIS_URL: "" };
// Two embedded starts on disk: a new database's files written, then opened again; slow on a busy machine.
const SLOW = 240_000;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cc-modes-"));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function modesUnder(path: string): Promise<Map<string, number>> {
  const modes = new Map<string, number>();
  const visit = async (entry: string) => {
    const stats = await lstat(entry);
    if (stats.isSymbolicLink()) return;
    modes.set(entry, stats.mode & 0o777);
    if (stats.isDirectory()) for (const name of await readdir(entry)) await visit(join(entry, name));
  };
  await visit(path);
  return modes;
}

function openToOthers(modes: Map<string, number>): string[] {
  return [...modes].filter(([, mode]) => (mode & 0o077) !== 0).map(([path, mode]) => `${path} ${mode.toString(8)}`);
}

describe("a new embedded data directory", () => {
  test(
    "is created 0700 and every file the database writes is owner-only, after writes and a restart",
    async () => {
      const dataDir = join(root, "fresh", "data");
      const server = await startTestServer({ env: { ...EMBEDDED, DATA_DIR: dataDir } });
      const { apiKey } = await createAccountWithKey(server.url);
      const started = await post(server.url, "/v1/calls/start", apiKey, {
        call_id: "modes-1",
        identity_hints: { ani: "+14155550123" },
      });
      expect(started.status).toBe(200);
      await server.stop();
      const modes = await modesUnder(dataDir);
      expect(modes.get(dataDir)).toBe(0o700);
      // PGlite's own files: hundreds of them on a new database.
      expect(modes.size).toBeGreaterThan(500);
      expect(openToOthers(modes)).toEqual([]);

      const again = await startTestServer({ env: { ...EMBEDDED, DATA_DIR: dataDir } });
      await again.stop();
      expect(openToOthers(await modesUnder(dataDir))).toEqual([]);
    },
    SLOW,
  );
});

describe("an embedded data directory open to group or others", () => {
  test("a directory 0755 stops the start with one line naming it and the fix", async () => {
    const dataDir = join(root, "wide");
    await mkdir(dataDir);
    await chmod(dataDir, 0o755);
    const run = await runToExit(["src/main.ts"], { ...EMBEDDED, DATA_DIR: dataDir, PORT: "0", ADMIN_TOKEN });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `caller-context: data directory ${dataDir} is open to group or others (${dataDir} has mode 0755); run chmod -R go-rwx ${dataDir}\n`,
    );
  });

  test("a file readable by others inside a 0700 directory stops the start too, before the database opens", async () => {
    const dataDir = join(root, "leaky");
    await mkdir(dataDir, { mode: 0o700 });
    const file = join(dataDir, "postgresql.conf");
    await writeFile(file, "# left by an older version\n");
    await chmod(file, 0o644);
    await expect(startTestServer({ env: { ...EMBEDDED, DATA_DIR: dataDir } })).rejects.toThrow(
      `(${file} has mode 0644)`,
    );
    // Refused before PGlite wrote anything.
    expect(await readdir(dataDir)).toEqual(["postgresql.conf"]);
  });
});
