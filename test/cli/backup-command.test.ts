import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DescMethodUnary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AdminService } from "../../gen/callercontext/v1/admin_pb.ts";
import { TRANSPORTS } from "../helpers/call-client.ts";
import { runCli, runCliJson } from "../helpers/cli-runner.ts";
import { post, startAndEndCall } from "../helpers/rest-client.ts";
import { createRpcClient } from "../helpers/rpc-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// `caller-context backup` on either engine: the embedded database writes a
// backup that `restore` opens with the calls it held; PostgreSQL refuses with
// the way to back it up. (test/slow/backup-restore.test.ts takes one under load.)

const embedded = !process.env.DATABASE_URL;
let backupDir: string;
let restoredDir: string;

const fixture = useTestServer({
  env: { BACKUP_DIR: join(tmpdir(), `cc-backups-${process.pid}-${Date.now()}`) },
});

beforeAll(async () => {
  backupDir = fixture.server.config.backupDir;
  restoredDir = await mkdtemp(join(tmpdir(), "cc-restored-"));
  for (let i = 0; i < 3; i++) await startAndEndCall(fixture.server.url, fixture.apiKey, { ani: `+1415555${1000 + i}` });
});

afterAll(async () => {
  await rm(backupDir, { recursive: true, force: true });
  await rm(restoredDir, { recursive: true, force: true });
});

describe("caller-context backup", () => {
  test("writes a .tar.gz into BACKUP_DIR that restore opens with its calls (embedded); is refused naming the tools to use (PostgreSQL)", async () => {
    if (!embedded) return expectRefusedOnPostgres();
    const backup = await runCliJson(fixture.server.url, ["backup"]);
    expect(await readdir(backupDir)).toEqual([backup.path.slice(backupDir.length + 1)]);
    expect(backup.path).toMatch(/\/caller-context-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.tar\.gz$/);
    expect(backup.bytes).toBeGreaterThan(0);
    const restored = await runCliJson(fixture.server.url, ["restore", backup.path, "--data-dir", restoredDir]);
    expect(restored).toEqual({ data_dir: restoredDir, calls: 3 });
  });
});

describe.each(TRANSPORTS)("BackupDatabase over %s", (via) => {
  test("answers the backup's path, size and time (embedded), or is refused as failed_precondition (PostgreSQL)", async () => {
    const rpc = createRpcClient(fixture.server.url);
    try {
      const answer = await rpc.call(via, AdminService.method.backupDatabase as unknown as DescMethodUnary, ADMIN_TOKEN);
      if (!embedded) {
        // FAILED_PRECONDITION over gRPC; 409 over REST, as the helper reads either.
        expect(answer.status).toBe(409);
        return;
      }
      expect(answer.status).toBe(200);
      expect(answer.body.path).toMatch(/\/caller-context-[^/]+\.tar\.gz$/);
      expect(answer.body.bytes).toBeGreaterThan(0);
      expect(Number.isNaN(Date.parse(answer.body.taken_at))).toBe(false);
    } finally {
      rpc.close();
    }
  });
});

/** On PostgreSQL the same command is refused, naming the tools to use, over the CLI and REST. */
async function expectRefusedOnPostgres(): Promise<void> {
  const refused = await runCli(fixture.server.url, ["backup"]);
  expect(refused).toEqual({
    code: 1,
    stdout: "",
    stderr:
      "caller-context: the database is PostgreSQL: back it up with pg_dump or the server's own backups " +
      "(docs/operations.md, Backups) (400)\n",
  });
  const rest = await post(fixture.server.url, "/admin/v1/backups", ADMIN_TOKEN, {});
  // REST answers failed_precondition as every route does, with 409.
  expect(rest.status).toBe(409);
  expect(rest.body).toMatchObject({
    error: "Conflict",
    message: expect.stringMatching(/^the database is PostgreSQL: /),
  });
}
