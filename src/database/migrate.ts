import { readdir } from "node:fs/promises";
import type { Kysely } from "kysely";
import { type Migration, type MigrationProvider, Migrator } from "kysely/migration";

const MIGRATIONS_DIR = new URL("../../migrations/", import.meta.url);

/** Every file in migrations/, in name order. */
const migrationsFolder: MigrationProvider = {
  async getMigrations() {
    const names = (await readdir(MIGRATIONS_DIR)).filter((name) => name.endsWith(".ts")).sort();
    const migrations: Record<string, Migration> = {};
    for (const name of names) {
      migrations[name.replace(/\.ts$/, "")] = await import(new URL(name, MIGRATIONS_DIR).href);
    }
    return migrations;
  },
};

/**
 * Brings the schema up to date. Kysely takes a PostgreSQL advisory lock, so
 * instances starting together apply each migration once.
 */
export async function migrateToLatest<S>(db: Kysely<S>): Promise<string[]> {
  const { error, results } = await new Migrator({ db, provider: migrationsFolder }).migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
