import type { ParseArgsOptionsConfig } from "node:util";
import type { Env } from "../config.ts";
import type { AdminClient } from "./admin-client.ts";

// One operator command: what it accepts (for parsing and usage) and what it does.

export interface Command {
  /** The words that select it, e.g. "accounts create". */
  readonly name: string;
  /** Positional arguments after the name, all required, e.g. ["ACCOUNT_ID", "N"]. */
  readonly args: readonly string[];
  readonly options: ParseArgsOptionsConfig;
  /** The options as shown in usage, e.g. "--name NAME [--tier TIER]". */
  readonly synopsis?: string;
  readonly summary: string;
  run(input: CommandInput): Promise<CommandResult>;
}

export interface CommandInput {
  /** Positional values, in the order of `Command.args`. */
  readonly args: readonly string[];
  readonly options: Readonly<Record<string, string | undefined>>;
  readonly env: Env;
  /** Built on first use, so commands that never call the server need no token. */
  admin(): AdminClient;
}

/** Both renderings; the caller prints one of them. */
export interface CommandResult {
  readonly json: object;
  readonly text: string;
}
