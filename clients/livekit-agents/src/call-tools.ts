import { llm } from "@livekit/agents";
import { z } from "zod";

// The function tools the LLM is given. Descriptions say when to call them. What a caller says about who
// they are is a claim: the identify tool sends it as hints, verified only when the application's own check
// says so (CallMemoryOptions.verifyCaller), never on the caller's word.

export interface CallToolsHandlers {
  /** Identifies the caller with the given hints; returns the new context text for the model. */
  identify(
    hints: { ani?: string; externalIds: Record<string, string>; customerRef?: string },
    claim: { accountNumber?: string; phoneNumber?: string },
  ): Promise<string>;
  record(outcome: {
    intent: string;
    status: "open" | "resolved";
    variables: Record<string, string>;
    summary: string | undefined;
  }): void;
  readonly identifyKey: string;
}

export function createCallTools(handlers: CallToolsHandlers): llm.ToolContextEntry[] {
  const identifyCaller = llm.tool({
    name: "identify_caller",
    description:
      "Call when the caller tells you who they are (their account number, or the phone number on their account). " +
      "Returns what may be shared with them; details that need verification stay held back unless the " +
      "application has verified the caller.",
    parameters: z.object({
      account_number: z.string().nullable().describe("The account number the caller gave, if any"),
      phone_number: z.string().nullable().describe("The phone number on the caller's account, in E.164, if given"),
    }),
    execute: async ({ account_number, phone_number }) => {
      if (!account_number && !phone_number) return "Ask the caller for their account number or phone number first.";
      return handlers.identify(
        {
          ani: phone_number ?? undefined,
          externalIds: account_number ? { [handlers.identifyKey]: account_number } : {},
        },
        { accountNumber: account_number ?? undefined, phoneNumber: phone_number ?? undefined },
      );
    },
  });
  const recordCallOutcome = llm.tool({
    name: "record_call_outcome",
    description:
      "Record the topic of the call and whether it was resolved, plus facts worth remembering for the next call " +
      "(not card numbers, passwords or national ids). Call it before the call ends; a later call replaces the topic's status.",
    parameters: z.object({
      intent: z.string().describe("Short snake_case topic, e.g. billing_question"),
      status: z.enum(["open", "resolved"]).describe("resolved when the caller's need was met during this call"),
      variables: z
        .array(z.object({ name: z.string(), value: z.string() }))
        .nullable()
        .describe("Facts to remember, e.g. preferred_name"),
      summary: z
        .string()
        .nullable()
        .describe("One or two sentences about this call, for whoever takes the caller's next call"),
    }),
    execute: async ({ intent, status, variables, summary }) => {
      handlers.record({
        intent,
        status,
        variables: Object.fromEntries((variables ?? []).map((variable) => [variable.name, variable.value])),
        summary: summary ?? undefined,
      });
      return "Recorded.";
    },
  });
  return [identifyCaller, recordCallOutcome];
}
