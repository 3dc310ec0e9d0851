import { open, readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { tryLock } from "fs-native-extensions";

// One process per embedded data directory: two PGlite instances on the same
// files each keep their own view and lose each other's writes. The lock is the
// kernel's (an open-file-description lock on Linux, flock on macOS), so it ends
// with its process however that process ends, kill -9 included: no stale file
// to judge. The file holds the holder's pid, for the message.

export const LOCK_FILE = "caller-context.lock";

export class DataDirLockedError extends Error {
  constructor(dataDir: string, holder: string) {
    super(
      `DATA_DIR: data directory ${dataDir} is in use by process ${holder}; only one process may open it: ` +
        "set DATA_DIR to another directory, or DATABASE_URL to a PostgreSQL database the instances share",
    );
    this.name = "DataDirLockedError";
  }
}

export interface DataDirLock {
  release(): Promise<void>;
}

/** Takes the directory's lock or throws DataDirLockedError at once; the directory must exist. */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const path = resolve(dataDir, LOCK_FILE);
  // Not "w": truncating would wipe the holder's pid before we know we may take its place.
  const file = await open(path, "a+");
  if (!tryLock(file.fd)) {
    const holder = (await readFile(path, "utf8").catch(() => "")).trim() || "unknown";
    await file.close();
    throw new DataDirLockedError(resolve(dataDir), holder);
  }
  await file.truncate(0);
  await file.write(`${process.pid}\n`, 0);
  await file.sync();
  return {
    // Closing the file is what releases the lock.
    release: () => file.close(),
  };
}
