import { readdir, readFile, rm } from "node:fs/promises";
import { resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { LOCK_FILE } from "./data-dir-lock.ts";
import { prepareDataDir, tightenDataDir } from "./data-dir-mode.ts";
import { pgliteModules } from "./pglite-modules.ts";

// A backup (snapshot.ts, gzip-compressed by the server) unpacked into a new
// data directory, and opened once to prove it opens. Never over data: a
// directory that holds anything is refused, so a mistyped path cannot replace
// a live database.

export class RestoreTargetError extends Error {
  constructor(dataDir: string) {
    super(`${dataDir} is not empty: restore into a new directory, then point DATA_DIR at it`);
    this.name = "RestoreTargetError";
  }
}

export async function restoreSnapshot(backupPath: string, dataDir: string): Promise<{ calls: number }> {
  const target = resolve(dataDir);
  const present = await readdir(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  if (present.length > 0) throw new RestoreTargetError(target);
  const backup = new Blob([await readFile(backupPath)]);
  await prepareDataDir(target);
  const pglite = await PGlite.create({ dataDir: target, loadDataDir: backup, ...(await pgliteModules()) });
  let calls: number;
  try {
    const { rows } = await pglite.query<{ calls: number }>("select count(*)::int as calls from calls");
    calls = rows[0]?.calls ?? 0;
  } finally {
    await pglite.close();
  }
  // The copy holds the lock file of the server it came from; its lock ended with that server's process.
  await rm(resolve(target, LOCK_FILE), { force: true });
  await tightenDataDir(target);
  return { calls };
}
