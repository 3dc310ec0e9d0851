import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
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
  | { readonly kind: "help" }
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

export function parseCommandLine(argv: string[], commands: readonly Command[]): CommandLine {
  const allOptions = Object.assign({}, GLOBAL_OPTIONS, ...commands.map((command) => command.options));
  const loose = parseArgs({ args: argv, options: allOptions, strict: false, allowPositionals: true });
  if (loose.values.help === true || loose.positionals[0] === "help") return { kind: "help" };
  if (loose.positionals.length === 0) throw new UsageError("missing command");

  const command = findCommand(loose.positionals, commands);
  const words = command.name.split(" ").length;
  const strict = strictParse(argv, { ...GLOBAL_OPTIONS, ...command.options });
  const args = strict.positionals.slice(words);
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

/** A whole number that fits the API's uint32 fields. */
export function parseCount(value: string, what: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 0xffff_ffff) {
    throw new UsageError(`${what} must be a whole number from 0 to 4294967295, got '${value}'`);
  }
  return n;
}

export function parseChoice<T extends string>(value: string, what: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) {
    throw new UsageError(`${what} must be one of: ${choices.join(", ")}, got '${value}'`);
  }
  return value as T;
}
