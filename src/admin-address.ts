import { readFileSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

// The admin listener's address, published in DATA_DIR while it listens, so
// that the CLI on the same host finds it by itself: by default it is on
// loopback at a port the system picks, so no two instances clash on it.

const FILE_NAME = "admin-url";

export function adminAddressPath(dataDir: string): string {
  return join(dataDir, FILE_NAME);
}

/** Writes `url` (owner-only, whole or not at all); the returned function removes it unless another instance has replaced it. */
export async function publishAdminUrl(dataDir: string, url: string): Promise<() => Promise<void>> {
  const path = adminAddressPath(dataDir);
  const draft = `${path}.${process.pid}`;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(draft, `${url}\n`, { mode: 0o600 });
  await rename(draft, path);
  return async () => {
    if (readAdminUrl(dataDir) === url) await rm(path, { force: true });
  };
}

/** The published URL, or undefined when no instance publishes one in this directory. */
export function readAdminUrl(dataDir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(adminAddressPath(dataDir), "utf8");
  } catch {
    return undefined;
  }
  const url = text.trim();
  return URL.canParse(url) ? url : undefined;
}
