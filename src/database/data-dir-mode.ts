import { chmod, lstat, mkdir, readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { isMainThread } from "node:worker_threads";

// The embedded database's files hold key and session hashes, platform secrets
// (encrypted, but beside their key file) and callers' data: only the service's
// own user may reach them, as PostgreSQL insists for its data directory.
// PGlite writes the files of a new database 0666 (it copies them from its
// in-memory image with their modes), so they are tightened once after the
// first open; what it creates later follows the process umask set here.

const GROUP_OR_OTHER = 0o077;

export class DataDirModeError extends Error {
  constructor(dataDir: string, path: string, mode: number) {
    const shown = (mode & 0o777).toString(8).padStart(4, "0");
    super(
      `data directory ${dataDir} is open to group or others (${path} has mode ${shown}); ` +
        `run chmod -R go-rwx ${dataDir}`,
    );
    this.name = "DataDirModeError";
  }
}

/**
 * Creates the directory 0700 when missing and makes files created from now on
 * owner-only; throws DataDirModeError when the directory or anything in it is
 * open to group or others.
 */
export async function prepareDataDir(dataDir: string): Promise<void> {
  restrictUmask();
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const open = await firstOpenEntry(resolve(dataDir));
  if (open !== undefined) throw new DataDirModeError(resolve(dataDir), open.path, open.mode);
}

/** Takes group and other permissions off everything in the directory (after PGlite's first open). */
export async function tightenDataDir(dataDir: string): Promise<void> {
  for await (const entry of entries(resolve(dataDir))) {
    if ((entry.mode & GROUP_OR_OTHER) !== 0) await chmod(entry.path, entry.mode & 0o700);
  }
}

/** The umask of the whole process: a worker thread may not set it, and it covers PGlite's thread too. */
function restrictUmask(): void {
  if (!isMainThread) return;
  const previous = process.umask(GROUP_OR_OTHER);
  process.umask(previous | GROUP_OR_OTHER);
}

async function firstOpenEntry(dataDir: string): Promise<{ path: string; mode: number } | undefined> {
  for await (const entry of entries(dataDir)) {
    if ((entry.mode & GROUP_OR_OTHER) !== 0) return entry;
  }
  return undefined;
}

/** The directory and everything under it; symbolic links (always 0777) are not followed nor reported. */
async function* entries(path: string): AsyncGenerator<{ path: string; mode: number }> {
  const stats = await lstat(path);
  if (stats.isSymbolicLink()) return;
  yield { path, mode: stats.mode };
  if (!stats.isDirectory()) return;
  for (const name of await readdir(path)) yield* entries(join(path, name));
}
