import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { createGzip } from "node:zlib";
import type { Clock } from "../domain/clock.ts";
import { DomainError } from "../domain/domain-error.ts";

// A backup of the embedded database, written by the server into its backup
// directory, as Redis's BGSAVE writes its dump: the server is the only process
// that may read the data directory while it runs. The copy itself is a
// snapshot taken while no statement runs (Database.snapshot); compressing and
// writing it happen after, while the calls go on. A file appears under its
// final name only once it is whole and on disk.

export interface BackupDeps {
  /** Undefined on PostgreSQL, which is backed up with its own tools. */
  readonly snapshot: (() => Promise<Blob>) | undefined;
  readonly clock: Clock;
  readonly backupDir: string;
}

export interface WrittenBackup {
  /** Absolute path of the `.tar.gz`. */
  readonly path: string;
  readonly bytes: number;
  /** When the snapshot was taken: every call acknowledged before it is in the backup. */
  readonly takenAt: Date;
}

export async function writeBackup(deps: BackupDeps): Promise<WrittenBackup> {
  if (deps.snapshot === undefined) {
    throw new DomainError(
      "failed_precondition",
      "the database is PostgreSQL: back it up with pg_dump or the server's own backups (docs/operations.md, Backups)",
    );
  }
  const dir = resolve(deps.backupDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const takenAt = deps.clock.now();
  const snapshot = await deps.snapshot();
  const path = join(dir, `caller-context-${takenAt.toISOString().replaceAll(":", "-")}.tar.gz`);
  const partial = `${path}.${randomBytes(4).toString("hex")}.partial`;
  try {
    // The backup holds the secrets key file when there is one: readable by the service's user only.
    const source = Readable.fromWeb(snapshot.stream() as WebReadableStream<Uint8Array>);
    await pipeline(source, createGzip(), createWriteStream(partial, { mode: 0o600, flags: "wx" }));
    await syncFile(partial);
    await rename(partial, path);
    await syncFile(dir);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return { path, bytes: (await stat(path)).size, takenAt };
}

async function syncFile(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
