import { rm } from "node:fs/promises";
import { resolve } from "node:path";
import { adminAddressPath } from "../admin-address.ts";
import { requireOption } from "./arguments.ts";
import type { Command } from "./command.ts";

// Backups of the embedded database (docs/operations.md, Backups): `backup`
// asks the running server to write one, since only it may read the data
// directory while it runs; `restore` unpacks one into a new directory, with no
// server involved. The store is imported on demand, as `migrate` does.

export const backupCommands: readonly Command[] = [
  {
    name: "backup",
    args: [],
    options: {},
    summary: "have the server write a backup of its embedded database into its BACKUP_DIR (./backups)",
    async run({ admin }) {
      const backup = await admin().backupDatabase({});
      return {
        json: { path: backup.path, bytes: backup.bytes, taken_at: backup.takenAt },
        text: [
          `Backup written: ${backup.path} (${backup.bytes} bytes)`,
          `Every call acknowledged before ${backup.takenAt} is in it.`,
          `Restore with: caller-context restore ${backup.path} --data-dir NEW_DIR`,
        ].join("\n"),
      };
    },
  },
  {
    name: "restore",
    args: ["BACKUP"],
    options: { "data-dir": { type: "string" } },
    synopsis: "--data-dir NEW_DIR",
    summary:
      "unpack a backup into a new data directory (refused if it holds anything); then start with DATA_DIR=NEW_DIR",
    async run({ args, options }) {
      const dataDir = requireOption(options, "data-dir");
      const { restoreSnapshot } = await import("../database/restore-snapshot.ts");
      const restored = await restoreSnapshot(args[0]!, dataDir);
      // The copy holds the address its server's admin listener had; the next server writes its own.
      await rm(adminAddressPath(dataDir), { force: true });
      return {
        json: { data_dir: resolve(dataDir), calls: restored.calls },
        text: `Restored ${restored.calls} calls into ${resolve(dataDir)}; start the service with DATA_DIR=${resolve(dataDir)}`,
      };
    },
  },
];
