import type { Command } from "./command.ts";

export function usageText(commands: readonly Command[]): string {
  const entries = commands.flatMap((command) => [
    `  ${[command.name, ...command.args, command.synopsis ?? ""].join(" ").trimEnd()}`,
    `      ${command.summary}`,
  ]);
  return [
    "Usage: caller-context <command> [options] [--json]",
    "",
    "Commands:",
    ...entries,
    "  help",
    "      show this text",
    "",
    "Options:",
    "  --json      print exactly one JSON object on stdout",
    "  -h, --help  show this text",
    "",
    "Environment:",
    "  CALLER_CONTEXT_URL      the server (default http://127.0.0.1:8080)",
    "  CALLER_CONTEXT_PUBLIC_URL  where platforms reach the server, for printed webhook URLs (default CALLER_CONTEXT_URL)",
    "  ADMIN_TOKEN             sent as the bearer token on every admin request",
    "  DATABASE_URL, DATA_DIR  the database `migrate` applies to, as for the server",
    "",
  ].join("\n");
}
