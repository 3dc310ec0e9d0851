import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ChildServer, startChildServer } from "./child-process.ts";

// The service as its own process, started as `npm start` starts it (the same
// Node flags), so the load generator never shares its event loop. It logs at
// info, the production default: the listening line carries the URL, and every
// request writes a line.

/** This checkout: the code a run measures unless an A/B names another. */
export const THIS_CHECKOUT = fileURLToPath(new URL("../../", import.meta.url));

/** The Node flags and the environment (`NAME=value` or `NAME=${NAME:-value}`) of a checkout's start script. */
function startCommand(root: string): { flags: string[]; env: Record<string, string> } {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const words = String(pkg.scripts.start).split(/\s+/);
  const env: Record<string, string> = {};
  for (const word of words) {
    const assignment = /^([A-Z_][A-Z0-9_]*)=(?:\$\{\1:-(.*)\}|(.*))$/.exec(word);
    if (assignment) env[assignment[1]!] = process.env[assignment[1]!] ?? assignment[2] ?? assignment[3] ?? "";
  }
  return { flags: words.filter((word) => word.startsWith("--")), env };
}

export interface ServiceProcessOptions {
  readonly databaseEnv: Readonly<Record<string, string>>;
  readonly adminToken: string;
  /** Further settings of the service (ADMISSION_CONTROL for the limiter's A/B). */
  readonly serverEnv?: Readonly<Record<string, string>>;
  /** Node flags after `npm start`'s own (a later V8 flag overrides an earlier one), for an A/B. */
  readonly nodeFlags?: readonly string[];
  /** Where to write a CPU profile at exit; none when unset. */
  readonly cpuProfile?: { readonly dir: string; readonly name: string };
  /** The checkout whose src/main.ts runs (another commit's, for an A/B); this one when unset. */
  readonly root?: string;
}

export function startServiceProcess(options: ServiceProcessOptions): Promise<ChildServer> {
  const { DATABASE_URL: _url, DATA_DIR: _dir, ...inherited } = process.env;
  const profile = options.cpuProfile;
  const root = options.root ?? THIS_CHECKOUT;
  const start = startCommand(root);
  return startChildServer({
    entry: join(root, "src/main.ts"),
    env: {
      ...inherited,
      ...start.env,
      PORT: "0",
      HOST: "127.0.0.1",
      ADMIN_TOKEN: options.adminToken,
      // The bench seeds its keys on the one port it measures (the admin API's own listener is the default).
      ADMIN_LISTEN: "public",
      // /metrics has a listener of its own (127.0.0.1); a free port, logged as "metrics listening".
      METRICS_PORT: "0",
      LOG_LEVEL: "info",
      ...options.databaseEnv,
      ...options.serverEnv,
    },
    nodeArgs: [
      ...start.flags,
      ...(options.nodeFlags ?? []),
      ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profile.dir}`, `--cpu-prof-name=${profile.name}`] : []),
    ],
    readyMessage: "caller context ready",
  });
}

/** 32 characters from [A-Za-z0-9]; the admin token of this run only. */
export function randomToken(): string {
  return randomBytes(48)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, 32)
    .padEnd(32, "0");
}
