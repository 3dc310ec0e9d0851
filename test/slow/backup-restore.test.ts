import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CallClient, countStatuses, createCallClient, TRANSPORTS } from "../helpers/call-client.ts";
import { type Caller, endBodyOf, endHeadersOf, newCaller, startBodyOf, unreadableCallers } from "../helpers/callers.ts";
import { type CliResult, runCli, runCliJson } from "../helpers/cli-runner.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.ts";

// A backup of the embedded database taken while 8 clients start and end calls
// holds every call acknowledged before the backup began: restored into a new
// directory with the CLI, a server started on it reads each of them back. The
// key file that seals stored secrets travels with it. While the files are
// copied the calls wait; one that waits past its time budget is refused with
// 503 and Retry-After (admission control), as any pause makes it: nothing is
// answered otherwise, and nothing refused was written.

const CLIENTS = 8;
/** Ends acknowledged before the backup is asked for, so there is something to read back. */
const ENDS_BEFORE_BACKUP = 80;
const LOAD_AFTER_BACKUP_MS = 500;

interface Acknowledged {
  readonly caller: Caller;
  readonly at: number;
}

let workDir: string;
let dataDir: string;
let restoredDir: string;
const servers: ServerProcess[] = [];
const clients: CallClient[] = [];
const seen = {
  statuses: [] as { status: number; headers: Record<string, string> }[],
  acknowledged: [] as Acknowledged[],
  backupBeganAt: 0,
  backupTookMs: 0,
  backup: undefined as { path: string; bytes: number; taken_at: string } | undefined,
  backupMode: 0,
  restore: undefined as { data_dir: string; calls: number } | undefined,
  restoreOverData: undefined as CliResult | undefined,
  unreadable: [] as unknown[],
  keyFileRestored: false,
};

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "cc-backup-"));
  dataDir = join(workDir, "data");
  restoredDir = join(workDir, "restored");
  // SECRETS_KEY unset: the key lives in DATA_DIR/secrets.key, which the backup must carry.
  const env = { DATABASE_URL: "", REDIS_URL: "", SECRETS_KEY: "", BACKUP_DIR: join(workDir, "backups") };
  const server = await startServerProcess({ ...env, DATA_DIR: dataDir });
  servers.push(server);
  const calls = createCallClient(server.url);
  clients.push(calls);
  const { apiKey } = await createAccountWithKey(server.url, { tier: "scale" });

  let running = true;
  const load = Array.from({ length: CLIENTS }, async (_, worker) => {
    for (let i = 0; running; i++) {
      const via = TRANSPORTS[(worker + i) % 2];
      const caller = newCaller(apiKey, `w${worker}`);
      const started = await calls.start(via, apiKey, startBodyOf(caller));
      seen.statuses.push(started);
      if (started.status !== 200) continue;
      const ended = await calls.end(via, apiKey, endBodyOf(caller, started.body.customer_ref), endHeadersOf(caller));
      seen.statuses.push(ended);
      if (ended.status === 200) seen.acknowledged.push({ caller, at: performance.now() });
    }
  });
  while (seen.acknowledged.length < ENDS_BEFORE_BACKUP) await sleep(20);

  seen.backupBeganAt = performance.now();
  seen.backup = await runCliJson(server.url, ["backup"]);
  seen.backupTookMs = performance.now() - seen.backupBeganAt;
  await sleep(LOAD_AFTER_BACKUP_MS);
  running = false;
  await Promise.all(load);
  seen.backupMode = (await stat(seen.backup!.path)).mode & 0o777;
  await server.stop();

  seen.restore = await runCliJson(server.url, ["restore", seen.backup!.path, "--data-dir", restoredDir]);
  seen.restoreOverData = await runCli(server.url, ["restore", seen.backup!.path, "--data-dir", dataDir]);
  seen.keyFileRestored =
    (await readFile(join(restoredDir, "secrets.key"), "utf8")) ===
    (await readFile(join(dataDir, "secrets.key"), "utf8"));

  const restored = await startServerProcess({ ...env, DATA_DIR: restoredDir });
  servers.push(restored);
  const readBack = createCallClient(restored.url);
  clients.push(readBack);
  const beforeBackup = seen.acknowledged.filter((ack) => ack.at < seen.backupBeganAt).map((ack) => ack.caller);
  seen.unreadable = await unreadableCallers(readBack, beforeBackup);
  console.log(
    `backup under load: ${seen.acknowledged.length} ends acknowledged, ${beforeBackup.length} before the backup began; ` +
      `backup of ${seen.backup!.bytes} bytes took ${Math.round(seen.backupTookMs)} ms from the CLI; ` +
      `answers ${JSON.stringify(countStatuses(seen.statuses))}; restored ${seen.restore!.calls} calls; ` +
      `${seen.unreadable.length} unreadable`,
  );
});

afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.all(servers.map((server) => server.stop()));
  await rm(workDir, { recursive: true, force: true });
});

describe("a backup of the embedded database taken under load", () => {
  test("every call acknowledged before the backup began is read back from the restored copy", () => {
    expect(seen.acknowledged.filter((ack) => ack.at < seen.backupBeganAt).length).toBeGreaterThanOrEqual(
      ENDS_BEFORE_BACKUP,
    );
    expect(seen.unreadable).toEqual([]);
  });

  test("the calls going on while it is taken are answered 200, or 503 with Retry-After past their budget", () => {
    const other = seen.statuses.filter(
      (answer) => answer.status !== 200 && !(answer.status === 503 && answer.headers["retry-after"] !== undefined),
    );
    expect(other).toEqual([]);
    expect(countStatuses(seen.statuses)[200]).toBeGreaterThan(ENDS_BEFORE_BACKUP);
  });

  test("the backup is readable by the service's user only, and carries the secrets key file", () => {
    expect(seen.backupMode).toBe(0o600);
    expect(seen.backup?.path.startsWith(join(workDir, "backups"))).toBe(true);
    expect(seen.keyFileRestored).toBe(true);
  });

  test("a restore never writes over a directory that holds anything", () => {
    expect(seen.restoreOverData?.code).toBe(1);
    expect(seen.restoreOverData?.stderr).toBe(
      `caller-context: ${dataDir} is not empty: restore into a new directory, then point DATA_DIR at it\n`,
    );
  });
});
