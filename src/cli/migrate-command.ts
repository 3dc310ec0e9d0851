import { envToConfig } from "../config.ts";
import type { Command } from "./command.ts";

// The one command that talks to the database instead of the admin API: the
// schema has to exist before a server can answer. The store is imported on
// demand so the HTTP commands never load database drivers.

export const migrateCommand: Command = {
  name: "migrate",
  args: [],
  options: {},
  summary: "apply pending database migrations (DATABASE_URL, or the embedded database in DATA_DIR)",
  async run({ env }) {
    const config = envToConfig(env);
    const { createDatabase } = await import("../store/database.ts");
    const { migrateToLatest } = await import("../database/migrate.ts");
    const database = await createDatabase(config);
    let applied: string[];
    try {
      applied = await migrateToLatest(database.db);
    } finally {
      await database.close();
    }
    return {
      json: { applied },
      text:
        applied.length === 0
          ? "Database schema is up to date; nothing to apply."
          : applied.map((name) => `Applied ${name}`).join("\n"),
    };
  },
};
