import {
  type CallerContextClient,
  type EndCallResponse,
  IntentStatus,
  type StartCallInput,
  type StartCallResponse,
} from "@caller-context/client";
import { type JobContext, llm, log, voice } from "@livekit/agents";
import { createCallTools } from "./call-tools.ts";
import { type CallerContextAnswer, type RenderOptions, renderCallerContext } from "./context-rendering.ts";
import { NotASipCallerError, type SipStartOptions, startRequestFromSip } from "./sip-attributes.ts";

// One SIP call's memory: started from the participant's attributes, its context handed to the agent,
// re-identified by a tool, and ended once with what the agent recorded.

export interface CallMemoryOptions extends SipStartOptions, RenderOptions {
  readonly client: CallerContextClient;
  /** The SIP participant, or anything with its attributes (`RemoteParticipant` is one). */
  readonly participant: { readonly attributes: Readonly<Record<string, string>> };
  /** The external id key the identify tool sends an account number as (default `account_number`). */
  readonly identifyKey?: string;
  /**
   * The application's own check that the caller is who they claim (a PIN, a one-time code, a CRM lookup of
   * something only they know). A claim the caller only said is a hint: without this check, or when it answers
   * false, identify is sent unverified, so the service neither links the caller's number to that customer nor
   * releases the variables saved with requires_verification.
   */
  readonly verifyCaller?: (claim: CallerClaim) => Promise<boolean>;
  /**
   * How long the start may take, retries included (default 800 ms): the phone is ringing. Past it, or when the
   * service refuses or cannot be reached, the agent goes on without context.
   */
  readonly startBudgetMs?: number;
  /** Told why a start gave no context, or an identify failed (default: a warning in the agent's log). */
  readonly onStartFailed?: (error: unknown) => void;
}

const DEFAULT_START_BUDGET_MS = 800;

/** What the caller said about who they are, as the identify tool received it. */
export interface CallerClaim {
  readonly accountNumber?: string;
  readonly phoneNumber?: string;
}

export interface CallMemory {
  /**
   * Starts the call with the service; the answer is also kept for `instructions` and `chatContext`. Never
   * throws: undefined when the service was late, refused or down (the call goes on without context, and the
   * end is not sent, since no start is known to have landed). Called again, it answers what the first call
   * did and sends nothing: a start that timed out may still have landed, and a second one would be refused.
   */
  start(): Promise<StartCallResponse | undefined>;
  /** The caller context as text, from the latest start or identify. */
  readonly contextText: string;
  /** `base` followed by the caller context: for `new voice.Agent({ instructions })`. */
  instructions(base: string): string;
  /** A new `ChatContext` holding the caller context as a system message: for `new voice.Agent({ chatCtx })`. */
  chatContext(): llm.ChatContext;
  /** `identify_caller` and `record_call_outcome`, for `new voice.Agent({ tools })`. */
  readonly tools: llm.ToolContextEntry[];
  /** The customer the call belongs to now (after identify, the one identified). */
  readonly customerRef: string | undefined;
  /** The latest answer (start or identify). */
  readonly latest: CallerContextAnswer | undefined;
  /** Records an intent to save at the end; a later record of the same intent replaces it. */
  recordIntent(intent: string, status: "open" | "resolved"): void;
  /** Records a variable to save at the end. */
  setVariable(name: string, value: string): void;
  /** The call's summary, sent with the end; the next start and identify recall it in `recent_calls`. */
  setSummary(summary: string): void;
  /** Ends the call once with what was recorded; later calls return the same promise. */
  end(): Promise<EndCallResponse | undefined>;
  /**
   * Ends the call when the agent session closes. Resolves with that end's answer, or with undefined after
   * passing its error to `onError`: a worker that does not wait for it is not brought down by it.
   */
  endWhenClosed(session: voice.AgentSession, onError?: (error: unknown) => void): Promise<EndCallResponse | undefined>;
  /**
   * Ends the call from the job's shutdown callbacks (`ctx.addShutdownCallback`), which the framework awaits
   * before the job's process exits, so the end is sent, and retried, even when the room closes first. An end
   * that fails is passed to `onError`, not thrown into the framework's shutdown.
   */
  endOnShutdown(ctx: Pick<JobContext, "addShutdownCallback">, onError?: (error: unknown) => void): void;
}

export function createCallMemory(options: CallMemoryOptions): CallMemory {
  const report = options.onStartFailed ?? warnStartFailed;
  // A participant that is not a SIP caller (a web client, another agent) gets no memory, not a crash.
  let request: StartCallInput | undefined;
  let notSip: NotASipCallerError | undefined;
  try {
    request = startRequestFromSip(options.participant.attributes, options);
  } catch (error) {
    if (!(error instanceof NotASipCallerError)) throw error;
    notSip = error;
  }
  const intents = new Map<string, IntentStatus>();
  const variables = new Map<string, string>();
  let latest: CallerContextAnswer | undefined;
  // One start per call: a second one could only repeat a call_id the first may have started.
  let starting: Promise<StartCallResponse | undefined> | undefined;
  let ending: Promise<EndCallResponse | undefined> | undefined;
  let summary: string | undefined;

  const memory: CallMemory = {
    start() {
      starting ??= (async () => {
        if (request === undefined) {
          report(notSip);
          return undefined;
        }
        try {
          const started = await options.client.start(request, {
            timeoutMs: options.startBudgetMs ?? DEFAULT_START_BUDGET_MS,
          });
          latest = started;
          return started;
        } catch (error) {
          report(error);
          return undefined;
        }
      })();
      return starting;
    },
    get contextText() {
      return latest === undefined ? "" : renderCallerContext(latest, options);
    },
    instructions: (base) => (latest === undefined ? base : `${base}\n\n${memory.contextText}`),
    chatContext() {
      const chatCtx = llm.ChatContext.empty();
      if (latest !== undefined) chatCtx.addMessage({ role: "system", content: memory.contextText });
      return chatCtx;
    },
    tools: createCallTools({
      identify: async (hints, claim) => {
        // Only a call the service started can move to another customer.
        if (request === undefined || latest === undefined) return "No caller records are available on this call.";
        // Only the application's check makes a spoken claim a verified one.
        const verified = (await options.verifyCaller?.(claim)) === true;
        try {
          latest = await options.client.identify({ callId: request.callId, identityHints: hints, verified });
        } catch (error) {
          report(error);
          return "The caller could not be looked up just now; carry on without it.";
        }
        return memory.contextText;
      },
      record: (outcome) => {
        memory.recordIntent(outcome.intent, outcome.status);
        if (outcome.summary) memory.setSummary(outcome.summary);
        for (const [name, value] of Object.entries(outcome.variables)) memory.setVariable(name, value);
      },
      identifyKey: options.identifyKey ?? "account_number",
    }),
    get customerRef() {
      return latest?.customerRef;
    },
    get latest() {
      return latest;
    },
    recordIntent(intent, status) {
      intents.set(intent, status === "open" ? IntentStatus.OPEN : IntentStatus.RESOLVED);
    },
    setVariable(name, value) {
      variables.set(name, value);
    },
    setSummary(text) {
      summary = text;
    },
    end() {
      // A call that never started has nothing to end.
      ending ??=
        latest === undefined || request === undefined
          ? Promise.resolve(undefined)
          : options.client.end({
              callId: request.callId,
              customerRef: latest.customerRef,
              intentUpdates: [...intents].map(([intent, status]) => ({ intent, status })),
              variableUpdates: Object.fromEntries([...variables].map(([name, value]) => [name, { value }])),
              summary,
            });
      return ending;
    },
    endWhenClosed(session, onError) {
      return new Promise((resolve) => {
        session.once(voice.AgentSessionEventTypes.Close, () => {
          memory.end().then(resolve, (error) => {
            onError?.(error);
            resolve(undefined);
          });
        });
      });
    },
    endOnShutdown(ctx, onError) {
      ctx.addShutdownCallback(async () => {
        await memory.end().catch((error: unknown) => onError?.(error));
      });
    },
  };
  return memory;
}

function warnStartFailed(error: unknown): void {
  log().warn(
    { error: error instanceof Error ? error.message : String(error) },
    "caller context: no context for this call",
  );
}
