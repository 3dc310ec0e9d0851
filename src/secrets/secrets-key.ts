import { randomBytes } from "node:crypto";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Config } from "../config.ts";
import { DataDirModeError } from "../database/data-dir-mode.ts";
import { createSecretBox, SECRETS_KEY_BYTES, type SecretBox } from "./secret-box.ts";

// Where the key that seals stored secrets comes from: SECRETS_KEY when set;
// otherwise a key file created 0600 on the first start beside the embedded
// data (DATA_DIR), which must then be backed up with it; for an in-memory
// database, a key that lives as long as the data does.

export const KEY_FILE_NAME = "secrets.key";

export interface SecretsKey {
  readonly box: SecretBox;
  /** "file": the key file at `path`, `created` on this start. */
  readonly source:
    | { readonly kind: "env" | "memory" }
    | { readonly kind: "file"; readonly path: string; readonly created: boolean };
}

export async function loadSecretsKey(config: Config): Promise<SecretsKey> {
  const { key, previousKeys } = config.secrets;
  if (key !== undefined) return { box: createSecretBox(key, previousKeys), source: { kind: "env" } };
  if (config.database.kind === "pglite" && config.database.dataDir === ":memory:") {
    return { box: createSecretBox(randomBytes(SECRETS_KEY_BYTES), previousKeys), source: { kind: "memory" } };
  }
  const path = resolve(join(config.dataDir, KEY_FILE_NAME));
  const { bytes, created } = await readOrCreateKeyFile(config.dataDir, path);
  return { box: createSecretBox(bytes, previousKeys), source: { kind: "file", path, created } };
}

async function readOrCreateKeyFile(dir: string, path: string): Promise<{ bytes: Buffer; created: boolean }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const fresh = randomBytes(SECRETS_KEY_BYTES);
  // "wx": of two instances starting on one directory, one creates the file and the other reads it.
  const created = await writeFile(path, `${fresh.toString("base64")}\n`, { mode: 0o600, flag: "wx" }).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === "EEXIST") return false;
      throw error;
    },
  );
  const mode = (await stat(path)).mode;
  if ((mode & 0o077) !== 0) throw new DataDirModeError(resolve(dir), path, mode);
  const bytes = Buffer.from((await readFile(path, "utf8")).trim(), "base64");
  if (bytes.length !== SECRETS_KEY_BYTES) {
    throw new Error(`${path} does not hold a ${SECRETS_KEY_BYTES}-byte key in base64`);
  }
  return { bytes, created };
}
