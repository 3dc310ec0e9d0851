import { execFile } from "node:child_process";
import { promisify } from "node:util";
import pg from "pg";
import type { PgbenchAnchor } from "../report/results.ts";
import type { BenchDatabase } from "../service/bench-database.ts";
import { progress } from "./phase.ts";

// An anchor measured in the same run on the same PostgreSQL server: pgbench's
// TPC-B transactions/s in a scratch database. At scale 1 every transaction
// updates the one branches row, as every call updates the one account row.

const run = promisify(execFile);
const THREADS = 2;
const SCALE = 1;

export async function measurePgbench(
  database: BenchDatabase,
  databaseUrl: string | undefined,
  options: { clients: number; seconds: number; stamp: string },
): Promise<PgbenchAnchor> {
  if (database.kind !== "postgres" || !databaseUrl) return skipped("the database is embedded");
  try {
    await run("pgbench", ["--version"]);
  } catch {
    return skipped("pgbench is not installed");
  }
  const name = `cc_pgbench_${options.stamp}`;
  const url = new URL(databaseUrl);
  const env = {
    ...process.env,
    PGHOST: url.hostname,
    PGPORT: url.port || "5432",
    PGUSER: decodeURIComponent(url.username) || "postgres",
    PGPASSWORD: decodeURIComponent(url.password),
    PGDATABASE: name,
  };
  const seconds = Math.max(1, Math.round(options.seconds));
  await admin(databaseUrl, `create database ${name}`);
  try {
    await run("pgbench", ["-i", "-q", "-s", String(SCALE)], { env, timeout: 300_000 });
    progress(`pgbench TPC-B, ${options.clients} clients, ${seconds} s`);
    const { stdout } = await run(
      "pgbench",
      ["-c", String(options.clients), "-j", String(THREADS), "-M", "prepared", "-T", String(seconds), "-n"],
      { env, timeout: (seconds + 120) * 1000 },
    );
    const tps = parseTps(stdout);
    if (tps === undefined) return skipped(`pgbench printed no tps: ${stdout.slice(-200)}`);
    progress(`  ${tps.toFixed(0)} transactions/s`);
    // No CPU figure: pgbench's backends have exited before a reading at the end could count them.
    return { tps, clients: options.clients, threads: THREADS, scale: SCALE, seconds };
  } catch (error) {
    return skipped(`pgbench failed: ${(error as Error).message.slice(0, 200)}`);
  } finally {
    await admin(databaseUrl, `drop database if exists ${name} with (force)`).catch(() => {});
  }
}

/** "tps = 1234.56 (without initial connection time)", as pgbench 14 and later print it. */
export function parseTps(output: string): number | undefined {
  const match = /^tps = ([\d.]+)/m.exec(output);
  return match ? Number(match[1]) : undefined;
}

function skipped(reason: string): PgbenchAnchor {
  progress(`pgbench anchor skipped: ${reason}`);
  return { skipped: reason };
}

async function admin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
