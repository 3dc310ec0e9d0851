import { progress } from "../phases/phase.ts";
import { createResourceMonitor, type ResourceMonitor, rssMb } from "../phases/resources.ts";
import type { ChildServer } from "./child-process.ts";
import { startServiceProcess } from "./server-process.ts";

// The service under test across the run: it may be stopped and started again
// on the same database (the embedded one has a single holder), keeps the
// warnings every process logged, and the CPU profiles they wrote.

export interface Service {
  readonly url: string;
  /** Where the running server serves /metrics. */
  readonly metricsUrl: string;
  readonly monitor: ResourceMonitor;
  readonly running: boolean;
  /** The server process's resident memory now, in MB. */
  rssMb(): number | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Log lines at warn or above, by message, over every process so far. */
  readonly problems: ReadonlyMap<string, number>;
  readonly profiles: readonly string[];
}

export interface ServiceOptions {
  readonly databaseEnv: Readonly<Record<string, string>>;
  readonly adminToken: string;
  readonly serverEnv?: Readonly<Record<string, string>>;
  /** Node flags after `npm start`'s own, for an A/B. */
  readonly nodeFlags?: readonly string[];
  /** Whether the database is a local PostgreSQL server whose CPU to measure. */
  readonly postgres: boolean;
  /** Directory and file name stem of CPU profiles; none when unset. */
  readonly cpuProfiles?: { readonly dir: string; readonly stem: string };
  /** The checkout whose server runs; this one when unset (see startServiceProcess). */
  readonly root?: string;
}

export function createService(options: ServiceOptions): Service {
  let current: { server: ChildServer; monitor: ResourceMonitor } | undefined;
  const problems = new Map<string, number>();
  const profiles: string[] = [];
  const running = () => {
    if (current === undefined) throw new Error("the service is not running");
    return current;
  };
  return {
    get url() {
      return running().server.url;
    },
    get metricsUrl() {
      const { metricsUrl } = running().server;
      if (metricsUrl === undefined) throw new Error("the service logged no metrics URL");
      return metricsUrl;
    },
    get monitor() {
      return running().monitor;
    },
    get running() {
      return current !== undefined;
    },
    rssMb() {
      return rssMb(running().server.pid);
    },
    problems,
    profiles,
    async start() {
      if (current !== undefined) return;
      const dir = options.cpuProfiles?.dir;
      const name = `${options.cpuProfiles?.stem}-${profiles.length + 1}.cpuprofile`;
      if (dir !== undefined) profiles.push(`${dir}${name}`);
      const server = await startServiceProcess({
        databaseEnv: options.databaseEnv,
        adminToken: options.adminToken,
        serverEnv: options.serverEnv,
        nodeFlags: options.nodeFlags,
        root: options.root,
        cpuProfile: dir === undefined ? undefined : { dir, name },
      });
      progress(`server pid ${server.pid} at ${server.url}`);
      current = { server, monitor: createResourceMonitor(server.pid, { postgres: options.postgres }) };
    },
    async stop() {
      if (current === undefined) return;
      const { server, monitor } = current;
      current = undefined;
      monitor.close();
      await server.stop();
      for (const [message, n] of server.problems) problems.set(message, (problems.get(message) ?? 0) + n);
    },
  };
}
