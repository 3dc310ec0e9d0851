import {
  type IdentifyCallResponse,
  IdentityLevel,
  Recommendation,
  type StartCallResponse,
} from "@caller-context/client";

// The caller's context as text an LLM reads: who the service thinks the caller is and how to treat that,
// what earlier calls left open, the stored variables, the names of those held back until the caller is
// verified, and the summaries of the latest calls. Every section can be switched off or replaced; the
// whole text too (`render`).

export type CallerContextAnswer = StartCallResponse | IdentifyCallResponse;

export interface RenderOptions {
  /** The variable holding the latest call's summary, shown apart from the others (default `last_call_summary`). */
  readonly summaryVariable?: string;
  /** Which variables to show (default: all). */
  readonly includeVariable?: (name: string) => boolean;
  /** The line the text starts with (default `# Caller context`). */
  readonly heading?: string;
  /** Replaces the whole rendering. */
  readonly render?: (answer: CallerContextAnswer) => string;
}

const GUIDANCE: Readonly<Record<number, string>> = {
  [Recommendation.REUSE]: "Known caller: use the context below without asking them to prove who they are.",
  [Recommendation.CONFIRM]:
    "Probably this caller: confirm who they are (for example their account number) before using the context below, then call identify_caller.",
  [Recommendation.IGNORE]:
    "New or unrecognised caller: no stored context. If they give an account number or other identifier, call identify_caller.",
};

const LEVELS: Readonly<Record<number, string>> = {
  [IdentityLevel.LOW]: "low",
  [IdentityLevel.MEDIUM]: "medium",
  [IdentityLevel.HIGH]: "high",
  [IdentityLevel.VERY_HIGH]: "very high",
};

export function renderCallerContext(answer: CallerContextAnswer, options: RenderOptions = {}): string {
  if (options.render) return options.render(answer);
  const summaryVariable = options.summaryVariable ?? "last_call_summary";
  const include = options.includeVariable ?? (() => true);
  const identity = answer.identity;
  const lines = [options.heading ?? "# Caller context"];
  const confidence = identity?.confidence ?? 0;
  lines.push(
    `Identity: ${LEVELS[identity?.level ?? 0] ?? "unknown"} confidence (${confidence.toFixed(2)}). ${
      GUIDANCE[identity?.recommendation ?? Recommendation.IGNORE] ?? GUIDANCE[Recommendation.IGNORE]
    }`,
  );
  if (answer.openIntents.length > 0) {
    lines.push("Open topics from earlier calls:");
    for (const open of answer.openIntents) {
      const attempts = open.attemptCount > 1 ? ` (raised in ${open.attemptCount} calls)` : "";
      lines.push(`- ${open.intent}${attempts}`);
    }
  }
  const variables = Object.entries(answer.variables).filter(([name]) => name !== summaryVariable && include(name));
  if (variables.length > 0) {
    lines.push("Known about the caller:");
    for (const [name, variable] of variables) lines.push(`- ${name}: ${variable.value}`);
  }
  if (answer.heldBackVariables.length > 0) {
    lines.push(
      `Held back until the caller is verified (do not guess them; ask the caller to verify to hear them): ${answer.heldBackVariables.join(", ")}`,
    );
  }
  if (answer.recentCalls.length > 0) {
    lines.push("Earlier calls, newest first:");
    for (const call of answer.recentCalls) {
      const day =
        call.callEnd === undefined
          ? ""
          : `${new Date(Number(call.callEnd.seconds) * 1000).toISOString().slice(0, 10)}: `;
      lines.push(`- ${day}${call.summary}`);
    }
  }
  const summary = answer.variables[summaryVariable]?.value;
  if (summary) lines.push(`Summary of the last call: ${summary}`);
  return lines.join("\n");
}
