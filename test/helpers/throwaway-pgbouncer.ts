import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";

// A PgBouncer of a test's own (Debian's 1.18: `apt-get install pgbouncer`), on
// a port the OS picked, in front of the PostgreSQL server `upstream` names.
// Every database name is passed through (the `*` entry) as user postgres,
// trusted, so a test may create databases on the server and reach them through
// the pooler. PgBouncer refuses to run as root, so as root it runs as `postgres`.

const run = promisify(execFile);
const START_TIMEOUT_MS = 15_000;

export interface ThrowawayPgbouncer {
  /** `upstream` with the pooler's host and port in place of the server's. */
  urlFor(upstream: string): string;
  stop(): Promise<void>;
}

export interface PgbouncerOptions {
  readonly poolMode: "session" | "transaction";
  /** More lines for the [pgbouncer] section (`ignore_startup_parameters = options`). */
  readonly extra?: readonly string[];
}

export async function startThrowawayPgbouncer(
  upstream: string,
  options: PgbouncerOptions,
): Promise<ThrowawayPgbouncer> {
  const server = new URL(upstream);
  const root = await mkdtemp(join(tmpdir(), "cc-pgbouncer-"));
  const port = await freePort();
  const config = join(root, "pgbouncer.ini");
  await writeFile(
    config,
    [
      "[databases]",
      `* = host=${server.hostname} port=${server.port || 5432} user=postgres`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = any",
      `pool_mode = ${options.poolMode}`,
      ...(options.extra ?? []),
      "",
    ].join("\n"),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const [{ stdout: uid }, { stdout: gid }] = await Promise.all([
      run("id", ["-u", "postgres"]),
      run("id", ["-g", "postgres"]),
    ]);
    await chown(root, Number(uid), Number(gid));
  }
  const child = spawn(process.env.PGBOUNCER ?? "/usr/sbin/pgbouncer", [...(asRoot ? ["-u", "postgres"] : []), config], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stdout?.on("data", (chunk) => output.push(String(chunk)));
  child.stderr?.on("data", (chunk) => output.push(String(chunk)));
  const stop = async () => {
    await stopChild(child);
    await rm(root, { recursive: true, force: true });
  };
  try {
    await listening(port, child, output);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    urlFor(url) {
      const through = new URL(url);
      through.hostname = "127.0.0.1";
      through.port = String(port);
      return through.toString();
    },
    stop,
  };
}

async function listening(port: number, child: ChildProcess, output: string[]): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`pgbouncer exited at start: ${output.join("").trim()}`);
    }
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (accepted) return;
    await sleep(50);
  }
  throw new Error(`pgbouncer did not listen within ${START_TIMEOUT_MS} ms: ${output.join("").trim()}`);
}

/** SIGTERM is PgBouncer's immediate shutdown. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  await exited;
}

/** A port nothing listens on right now (the OS picks it). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
