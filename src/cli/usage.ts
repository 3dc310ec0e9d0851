import type { Command } from "./command.ts";

// The help text: all commands, one group ("accounts") or one command ("accounts create").

export function usageText(commands: readonly Command[], topic?: string): string {
  const shown =
    topic === undefined ? commands : commands.filter((c) => c.name === topic || c.name.startsWith(`${topic} `));
  const single = shown.length === 1 && shown[0]!.name === topic ? shown[0] : undefined;
  if (single !== undefined) {
    return [`Usage: caller-context ${synopsisOf(single)} [--json]`, "", `  ${single.summary}`, "", ...GLOBAL, ""].join(
      "\n",
    );
  }
  const entries = shown.flatMap((command) => [`  ${synopsisOf(command)}`, `      ${command.summary}`]);
  return [
    `Usage: caller-context ${topic === undefined ? "" : `${topic} `}<command> [options] [--json]`,
    "",
    "Commands:",
    ...entries,
    ...(topic === undefined ? ["  help [COMMAND]", "      show this text, or one command's"] : []),
    "",
    ...GLOBAL,
    "",
    "Environment:",
    "  CALLER_CONTEXT_URL      the admin API (default: the address a service on this host publishes in",
    "                          DATA_DIR/admin-url, else http://127.0.0.1:8080)",
    "  CALLER_CONTEXT_PUBLIC_URL  where people and platforms reach the server, for printed invite and webhook",
    "                          URLs (default CALLER_CONTEXT_URL, else http://127.0.0.1:8080)",
    "  ADMIN_TOKEN             sent as the bearer token on every admin request",
    "  DATABASE_URL, DATA_DIR  the database `migrate` applies to, as for the server",
    "",
  ].join("\n");
}

const GLOBAL = [
  "Options:",
  '  --json      print exactly one JSON object on stdout (on failure {"error": {"code", "message"}})',
  "  -h, --help  show this text",
];

function synopsisOf(command: Command): string {
  return [command.name, ...command.args, command.synopsis ?? ""].join(" ").trimEnd();
}
