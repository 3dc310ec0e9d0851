import { execFile } from "node:child_process";
import { chown, mkdtemp, readdir, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

// A PostgreSQL cluster of a test's own, in a temporary directory, so the test
// may stop and restart it without disturbing the machine's server. PostgreSQL
// refuses to run as root, so as root its programs run as the `postgres` user.

const run = promisify(execFile);
const PG_CTL_WAIT_SECONDS = "60";

export interface ThrowawayPostgres {
  /** A connection URL for the cluster's `postgres` database. */
  readonly url: string;
  start(): Promise<void>;
  /** `pg_ctl stop`; "fast" rolls back open transactions and disconnects, "immediate" is a crash. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  restart(mode?: "fast" | "immediate"): Promise<void>;
  /** Stops the cluster if it runs and deletes its directory; safe to call more than once. */
  remove(): Promise<void>;
}

export async function createThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const root = await mkdtemp(join(tmpdir(), "cc-pg-"));
  const dataDir = join(root, "data");
  const logFile = join(root, "server.log");
  const bin = await serverPrograms();
  const owner = await clusterOwner();
  if (owner !== undefined) await chown(root, owner.uid, owner.gid);
  const pg = (program: string, args: string[]) =>
    run(join(bin, program), args, { cwd: root, ...owner, timeout: 90_000 }).catch((error) => {
      throw new Error(`${program} ${args.join(" ")}: ${error.stderr || error.message}`);
    });

  try {
    await pg("initdb", ["-D", dataDir, "-A", "trust", "-U", "postgres", "--no-sync"]);
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  const port = await freePort();
  // Only TCP on 127.0.0.1, and the Unix socket in the cluster's own directory.
  const serverOptions = `-p ${port} -h 127.0.0.1 -k ${root}`;
  const ctl = (action: string, ...args: string[]) =>
    pg("pg_ctl", [action, "-D", dataDir, "-w", "-t", PG_CTL_WAIT_SECONDS, ...args]);

  let removed = false;
  const cluster: ThrowawayPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: async () => {
      await ctl("start", "-o", serverOptions, "-l", logFile);
    },
    stop: async (mode = "fast") => {
      await ctl("stop", "-m", mode);
    },
    restart: async (mode = "fast") => {
      await ctl("restart", "-m", mode, "-o", serverOptions, "-l", logFile);
    },
    async remove() {
      if (removed) return;
      removed = true;
      await ctl("stop", "-m", "immediate").catch(() => {});
      await rm(root, { recursive: true, force: true });
    },
  };
  try {
    await cluster.start();
  } catch (error) {
    await cluster.remove();
    throw error;
  }
  return cluster;
}

/** PG_BIN, or the newest PostgreSQL of the Debian layout (/usr/lib/postgresql/<version>/bin). */
async function serverPrograms(): Promise<string> {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const versions = await readdir("/usr/lib/postgresql").catch(() => []);
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) throw new Error("PostgreSQL's server programs not found: set PG_BIN to their directory");
  return join("/usr/lib/postgresql", newest, "bin");
}

/** Who runs the cluster's programs: the `postgres` user when we are root, else ourselves. */
async function clusterOwner(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([
    run("id", ["-u", "postgres"]),
    run("id", ["-g", "postgres"]),
  ]);
  return { uid: Number(uid), gid: Number(gid) };
}

/** A port nothing listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
