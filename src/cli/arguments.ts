import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import { MAX_QUOTA } from "../domain/account.ts";
import { isRepeatWindowDays, MAX_REPEAT_WINDOW_DAYS, MIN_REPEAT_WINDOW_DAYS } from "../domain/repeat-window.ts";
import { isRetentionDays, MAX_RETENTION_DAYS, MIN_RETENTION_DAYS, retentionDaysFromText } from "../domain/retention.ts";
import type { Command } from "./command.ts";

// argv → the command to run and its values. Two passes: a lenient one to find
// the command words wherever flags sit, then a strict one with only that
// command's options, so a flag meant for another command is an error.

/** Bad command line: the operator's mistake, reported with exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export type CommandLine =
  /** `topic` narrows the help to a group ("accounts") or one command ("accounts create"). */
  | { readonly kind: "help"; readonly topic?: string }
  | {
      readonly kind: "run";
      readonly command: Command;
      readonly json: boolean;
      readonly args: string[];
      readonly options: Record<string, string | undefined>;
    };

const GLOBAL_OPTIONS: ParseArgsOptionsConfig = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

export function parseCommandLine(rawArgv: string[], commands: readonly Command[]): CommandLine {
  const argv = rawArgv.map(protectNegativeNumber);
  const allOptions = Object.assign({}, GLOBAL_OPTIONS, ...commands.map((command) => command.options));
  const loose = parseArgs({ args: argv, options: allOptions, strict: false, allowPositionals: true });
  const positionals = loose.positionals.map(restoreNegativeNumber);
  if (positionals[0] === "help") return { kind: "help", topic: helpTopic(positionals.slice(1), commands) };
  if (loose.values.help === true) return { kind: "help", topic: helpTopic(positionals, commands) };
  if (positionals.length === 0) throw new UsageError("missing command");

  const command = findCommand(positionals, commands);
  const words = command.name.split(" ").length;
  const strict = strictParse(argv, { ...GLOBAL_OPTIONS, ...command.options });
  const args = strict.positionals.map(restoreNegativeNumber).slice(words);
  if (args.length < command.args.length) {
    throw new UsageError(`${command.name} needs ${command.args.slice(args.length).join(" ")}`);
  }
  if (args.length > command.args.length) throw new UsageError(`unexpected argument '${args[command.args.length]}'`);

  const options: Record<string, string | undefined> = {};
  for (const name of Object.keys(command.options)) {
    const value = strict.values[name];
    if (typeof value === "string") options[name] = value;
  }
  return { kind: "run", command, json: strict.values.json === true, args, options };
}

/** Whether the command line asks for JSON, read without parsing it: a line that fails to parse still answers in JSON. */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

// No option of ours is a digit, so "-5" is a value (a quota, say) for the command to judge, not an unknown flag.
const NEGATIVE = "\u0000negative:";
const protectNegativeNumber = (arg: string) => (/^-\d/.test(arg) ? `${NEGATIVE}${arg}` : arg);
const restoreNegativeNumber = (arg: string) => (arg.startsWith(NEGATIVE) ? arg.slice(NEGATIVE.length) : arg);

/** The group or command the words name, for `help accounts` and `accounts create --help`; undefined for all. */
function helpTopic(words: readonly string[], commands: readonly Command[]): string | undefined {
  const [first, second] = words;
  if (first === undefined) return undefined;
  const exact = commands.find((command) => command.name === first || command.name === `${first} ${second}`);
  if (exact !== undefined) return exact.name;
  if (commands.some((command) => command.name.startsWith(`${first} `))) return first;
  throw new UsageError(`unknown command '${first}'`);
}

function findCommand(positionals: string[], commands: readonly Command[]): Command {
  const [first, second] = positionals;
  const exact = commands.find((command) => command.name === first || command.name === `${first} ${second}`);
  if (exact !== undefined) return exact;
  const group = commands.filter((command) => command.name.startsWith(`${first} `));
  if (group.length === 0) throw new UsageError(`unknown command '${first}'`);
  const verbs = group.map((command) => command.name.split(" ")[1]).join(", ");
  if (second === undefined) throw new UsageError(`${first} needs one of: ${verbs}`);
  throw new UsageError(`unknown command '${first} ${second}' (expected one of: ${verbs})`);
}

function strictParse(argv: string[], options: ParseArgsOptionsConfig) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (error) {
    // parseArgs reports bad flags as TypeErrors with ERR_PARSE_ARGS_* codes.
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_")) {
      // The first sentence names the flag; the rest is advice about `--` that rarely applies.
      throw new UsageError((error as Error).message.split(/(?<=\.)\s/)[0]!);
    }
    throw error;
  }
}

export function requireOption(options: Readonly<Record<string, string | undefined>>, name: string): string {
  const value = options[name];
  if (value === undefined || value.trim() === "") throw new UsageError(`--${name} is required`);
  return value;
}

/** A quota as the server accepts one: a whole number from 0 to MAX_QUOTA. */
export function parseQuota(value: string, what: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > MAX_QUOTA) {
    throw new UsageError(`${what} must be a whole number from 0 to ${MAX_QUOTA}, got '${value}'`);
  }
  return n;
}

/** Days of retention as the server accepts them: a whole number from MIN_RETENTION_DAYS to MAX_RETENTION_DAYS. */
export function parseRetention(value: string, what: string): number {
  const n = retentionDaysFromText(value);
  if (!isRetentionDays(n)) {
    throw new UsageError(
      `${what} must be a whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}, got '${value}'`,
    );
  }
  return n;
}

export function parseChoice<T extends string>(value: string, what: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) {
    throw new UsageError(`${what} must be one of: ${choices.join(", ")}, got '${value}'`);
  }
  return value as T;
}

/** A comma-separated list, each item one of the choices. */
export function parseChoices<T extends string>(value: string, what: string, choices: readonly T[]): T[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "")
    .map((item) => parseChoice(item, what, choices));
}

/** A repeat window as the server accepts one: a whole number of days from 1 to 30. */
export function parseRepeatWindow(value: string, what: string): number {
  const n = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!isRepeatWindowDays(n)) {
    throw new UsageError(
      `${what} must be a whole number of days from ${MIN_REPEAT_WINDOW_DAYS} to ${MAX_REPEAT_WINDOW_DAYS}, got '${value}'`,
    );
  }
  return n;
}
