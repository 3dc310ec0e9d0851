import { writeFileSync } from "node:fs";
import { PLATFORM_EVENTS } from "../src/cli/simulate/platform-events.ts";
import { SIMULATED_DEFAULTS, type SimulatedCall } from "../src/cli/simulate/simulated-call.ts";
import { PLATFORMS } from "../src/integrations/platforms/platform-adapters.ts";

// docs/platform-payloads.md: every webhook `caller-context simulate` sends, as it sends it, for one example call.
// `npm exec -- node scripts/platform-payloads.ts` rewrites the file; test/cli/simulate-payloads.test.ts fails when it is stale.

export const PAYLOADS_DOC = new URL("../docs/platform-payloads.md", import.meta.url);

const EXAMPLE_CALL: SimulatedCall = {
  ...SIMULATED_DEFAULTS,
  callId: "call-0001",
  variables: { plan: "gold" },
  nowMs: Date.parse("2026-11-27T10:00:00.000Z"),
};

const WHAT = { inbound: "asks for the caller's context", "in-call": "only acknowledged", end: "saved" } as const;

export function renderPlatformPayloads(): string {
  const lines = [
    "# Platform payloads",
    "",
    'The webhooks `caller-context simulate` sends (docs/integrations.md, "Trying it locally"), for one example',
    "call: `--call-id call-0001 --variables plan=gold`, the other options left to their defaults. Their fields are",
    "the platforms' own: test/cli/simulate-payloads.test.ts holds them to the fixtures the contract tests sign",
    "with each platform's SDK. This file is written by `npm exec -- node scripts/platform-payloads.ts`.",
  ];
  for (const platform of PLATFORMS) {
    lines.push("", `## ${platform}`);
    for (const [name, event] of Object.entries(PLATFORM_EVENTS[platform])) {
      const body = event.body(EXAMPLE_CALL);
      const shown = event.contentType === "application/json" ? JSON.stringify(JSON.parse(body), null, 2) : body;
      const language = event.contentType === "application/json" ? "json" : "text";
      lines.push(
        "",
        `### \`${name}\` (${WHAT[event.kind]}; \`${event.contentType}\`)`,
        "",
        `\`\`\`${language}`,
        shown,
        "```",
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

if (import.meta.main) writeFileSync(PAYLOADS_DOC, renderPlatformPayloads());
