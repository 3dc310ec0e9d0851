import { relative, resolve } from "node:path";

// A DATA_DIR the service cannot use (unreadable, not a directory, on a
// read-only file system) fails in whichever file operation meets it first;
// the operator needs the setting, not that operation's stack.

const FILE_SYSTEM_CODES = new Set(["EACCES", "EPERM", "ENOTDIR", "EROFS", "EEXIST", "ENOENT", "ELOOP", "ENOSPC"]);

export class DataDirAccessError extends Error {
  constructor(dataDir: string, code: string, path: string) {
    const where = path === dataDir ? "" : ` (${path})`;
    super(
      `DATA_DIR: ${dataDir} cannot be used: ${describe(code)}${where}; ` +
        "set DATA_DIR to a directory this user can read and write",
    );
    this.name = "DataDirAccessError";
  }
}

/** The error as a DataDirAccessError when a file operation in or on `dataDir` failed; otherwise unchanged. */
export function asDataDirFailure(dataDir: string, error: unknown): unknown {
  const failure = error as { code?: unknown; path?: unknown } | undefined;
  if (typeof failure?.code !== "string" || !FILE_SYSTEM_CODES.has(failure.code)) return error;
  if (typeof failure.path !== "string") return error;
  const root = resolve(dataDir);
  const path = resolve(failure.path);
  const inside = path === root || !relative(root, path).startsWith("..");
  // A parent of the directory that cannot be created or entered counts too: the setting is still DATA_DIR.
  const above = !relative(path, root).startsWith("..");
  return inside || above ? new DataDirAccessError(root, failure.code, path) : error;
}

function describe(code: string): string {
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ENOTDIR":
    case "EEXIST":
      return "a file is in the way of a directory";
    case "EROFS":
      return "the file system is read-only";
    case "ENOSPC":
      return "no space left on the device";
    default:
      return code;
  }
}
