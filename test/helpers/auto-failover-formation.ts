import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, openSync } from "node:fs";
import { chown, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import pg from "pg";
import { clusterOwner, freePort, serverPrograms } from "./throwaway-postgres.ts";

// A pg_auto_failover formation of a test's own (Debian's
// postgresql-15-auto-failover): a monitor and two nodes, a primary and its
// synchronous standby, each a `pg_autoctl … --run` process group in a
// temporary directory, on ports the OS picked. Killing a node's group is the
// crash of its machine: pg_autoctl and PostgreSQL go together, nothing restarts them.

const READY_WITHIN_MS = 120_000;

/**
 * The monitor's health checks, made quick so a failover fits in a test: a node
 * is checked each second and is unhealthy after 3 s without news; the standby
 * waits 3 s (the default is 30) for the old primary to report its demotion
 * before it takes writes. Set before the nodes register.
 */
const MONITOR_SETTINGS: Record<string, string> = {
  "pgautofailover.health_check_period": "1000",
  "pgautofailover.health_check_timeout": "1000",
  "pgautofailover.health_check_max_retries": "1",
  "pgautofailover.health_check_retry_delay": "500",
  "pgautofailover.node_considered_unhealthy_timeout": "3000",
  "pgautofailover.primary_demote_timeout": "3000",
};

export interface FormationNode {
  readonly name: string;
  readonly port: number;
  /** A URL to this node alone. */
  readonly url: string;
}

export interface AutoFailoverFormation {
  /** Both nodes, primary first, as libpq's multi-host URL with target_session_attrs=read-write. */
  readonly url: string;
  readonly primary: FormationNode;
  readonly standby: FormationNode;
  /** SIGKILL to every process of the node's group: pg_autoctl and its PostgreSQL. */
  kill(node: FormationNode): void;
  /** The monitor's view, one line per node, for failure messages. */
  state(): Promise<string>;
  /** Kills everything and deletes the directory; safe to call more than once. */
  remove(): Promise<void>;
}

export async function createAutoFailoverFormation(): Promise<AutoFailoverFormation> {
  await promisify(execFile)("pg_autoctl", ["--version"]).catch(() => {
    throw new Error("pg_autoctl not found: install Debian's postgresql-15-auto-failover (.ci/run does)");
  });
  const root = await mkdtemp(join(tmpdir(), "cc-paf-"));
  const owner = await clusterOwner();
  if (owner !== undefined) await chown(root, owner.uid, owner.gid);
  const bin = await serverPrograms();
  const groups: ChildProcess[] = [];
  const env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH}`,
    HOME: root,
    XDG_CONFIG_HOME: join(root, "config"),
    XDG_DATA_HOME: join(root, "share"),
    XDG_RUNTIME_DIR: join(root, "run"),
    // Unix sockets in the formation's own directory, not the machine's /var/run/postgresql.
    PG_REGRESS_SOCK_DIR: root,
  };
  // Each group's output in a file of its own: what a failed start shows.
  const autoctl = (args: string[], name: string) => {
    const log = openSync(join(root, `${name}.log`), "a");
    const child = spawn("pg_autoctl", args, { cwd: root, env, ...owner, detached: true, stdio: ["ignore", log, log] });
    closeSync(log);
    child.on("error", () => {});
    groups.push(child);
    return child;
  };
  const common = ["--hostname", "127.0.0.1", "--auth", "trust", "--no-ssl", "--run"];

  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    await Promise.all(groups.map(killGroup));
    await rm(root, { recursive: true, force: true });
  };

  try {
    const monitorPort = await freePort();
    autoctl(
      [
        "create",
        "monitor",
        "--pgdata",
        join(root, "monitor"),
        "--pgport",
        String(monitorPort),
        // Trust authentication: on the loopback only.
        "--listen",
        "127.0.0.1",
        ...common,
      ],
      "monitor",
    );
    const monitorUrl = `postgres://postgres@127.0.0.1:${monitorPort}/pg_auto_failover`;
    await until("the monitor is up", groups, () => query(monitorUrl, "select 1 from pgautofailover.node limit 1"));
    for (const [name, value] of Object.entries(MONITOR_SETTINGS)) {
      await query(monitorUrl, `alter system set ${name} = '${value}'`);
    }
    await query(monitorUrl, "select pg_reload_conf()");
    const nodeMonitor = `postgres://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover?sslmode=disable`;

    const nodes: FormationNode[] = [];
    for (const name of ["node_a", "node_b"]) {
      const port = await freePort();
      const node = { name, port, url: `postgres://postgres@127.0.0.1:${port}/postgres` };
      const group = autoctl(
        [
          "create",
          "postgres",
          "--pgdata",
          join(root, name),
          "--pgport",
          String(port),
          "--listen",
          "127.0.0.1",
          "--pghost",
          "127.0.0.1",
          "--name",
          name,
          "--monitor",
          nodeMonitor,
          ...common,
        ],
        name,
      );
      nodePids.set(node, group);
      nodes.push(node);
      // The first becomes the primary alone, then the second its standby; both settled before going on.
      const wanted = nodes.length === 1 ? ["single"] : ["primary", "secondary"];
      await until(`${name} registered`, groups, async () => {
        const { rows } = await query(
          monitorUrl,
          "select reportedstate::text as reported, goalstate::text as goal from pgautofailover.node order by nodeid",
        );
        const settled = rows.filter((row) => row.reported === row.goal).map((row) => row.reported);
        return rows.length === nodes.length && wanted.every((state) => settled.includes(state));
      });
    }
    const [primary, standby] = nodes;
    // Synchronous: the primary acknowledges a commit once the standby has it.
    const { rows } = await query(primary.url, "show synchronous_standby_names");
    if (!rows[0]?.synchronous_standby_names) throw new Error("the formation's standby is not synchronous");

    return {
      url: `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres?target_session_attrs=read-write`,
      primary,
      standby,
      kill(node) {
        const group = nodePids.get(node);
        if (group?.pid !== undefined) process.kill(-group.pid, "SIGKILL");
      },
      async state() {
        const { rows } = await query(
          monitorUrl,
          "select nodename, nodeport, reportedstate, goalstate, reportedlsn from pgautofailover.node order by nodeid",
        ).catch((error) => ({ rows: [{ error: String(error) }] }));
        return rows.map((row) => JSON.stringify(row)).join("\n");
      },
      remove,
    };
  } catch (error) {
    const logs = await Promise.all(
      ["monitor", "node_a", "node_b"].map(async (name) => {
        const text = await readFile(join(root, `${name}.log`), "utf8").catch(() => "");
        return `\n--- ${name}\n${text.split("\n").slice(-15).join("\n")}`;
      }),
    );
    await remove();
    throw new Error(`the pg_auto_failover formation did not start: ${String(error)}${logs.join("")}`);
  }
}

const nodePids = new WeakMap<FormationNode, ChildProcess>();

async function killGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    return; // already gone
  }
  if (child.exitCode === null && child.signalCode === null) await once(child, "exit");
  // PostgreSQL under it may outlive pg_autoctl by a moment; its directory is removed after.
  await sleep(200);
}

/** One statement on a connection of its own, which must answer within a second. */
export async function query(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000, query_timeout: 5_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    return await client.query(text);
  } finally {
    await client.end().catch(() => {});
  }
}

async function until(what: string, groups: ChildProcess[], check: () => Promise<unknown>): Promise<void> {
  const deadline = performance.now() + READY_WITHIN_MS;
  let last: unknown;
  while (performance.now() < deadline) {
    const exited = groups.find((child) => child.exitCode !== null || child.signalCode !== null);
    if (exited) throw new Error(`${what}: pg_autoctl ${exited.spawnargs.slice(1, 3).join(" ")} exited`);
    try {
      if ((await check()) !== false) return;
    } catch (error) {
      last = error;
    }
    await sleep(250);
  }
  throw new Error(`${what}: not within ${READY_WITHIN_MS / 1000} s${last ? ` (${String(last)})` : ""}`);
}
