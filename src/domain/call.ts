// The call operations' inputs and results, in the domain's own terms.

export type LineType = "mobile" | "landline" | "voip" | "unknown";
export type IntentStatus = "open" | "resolved";

export interface IdentityHintsInput {
  readonly ani?: string;
  readonly dnis?: string;
  readonly externalIds: Readonly<Record<string, string>>;
  readonly customerRef?: string;
}

export interface StartCallInput {
  readonly callId: string;
  readonly identityHints?: IdentityHintsInput;
  readonly lineType?: LineType;
  /** telco.attestation as sent: one of the Attestation values once validated. */
  readonly attestation?: string;
  /** telco.verstat as sent: a platform's verification status, read by src/domain/verstat.ts. */
  readonly verstat?: string;
}

export interface IdentifyCallInput {
  readonly callId: string;
  readonly identityHints?: IdentityHintsInput;
  /** The client checked the caller's identity itself. */
  readonly verified: boolean;
}

export interface IntentUpdateInput {
  readonly intent: string;
  readonly status?: IntentStatus;
  readonly resolution?: { readonly type: string; readonly externalReference: string };
}

export interface VariableUpdateInput {
  readonly value: string;
  readonly source?: string;
  readonly ttlSeconds?: number;
  /** Shared only with a verified caller (src/domain/verified-caller.ts). */
  readonly requiresVerification?: boolean;
}

export interface EndCallInput {
  readonly callId: string;
  readonly customerRef?: string;
  readonly identityHints?: IdentityHintsInput;
  readonly intent?: string;
  readonly intentStatus?: IntentStatus;
  readonly variables: Readonly<Record<string, string>>;
  readonly intentUpdates: readonly IntentUpdateInput[];
  readonly variableUpdates: Readonly<Record<string, VariableUpdateInput>>;
  /** Either form: what the call was about. */
  readonly summary?: string;
}

/** A validated end: both request forms reduced to one list of each. */
export interface EndCallCommand {
  readonly callId: string;
  readonly customerRef?: string;
  readonly identityHints?: IdentityHintsInput;
  readonly intents: readonly IntentUpdateInput[];
  readonly variables: ReadonlyMap<
    string,
    Required<Pick<VariableUpdateInput, "value" | "ttlSeconds" | "requiresVerification">> & {
      readonly source: string | null;
    }
  >;
  /** Screened; undefined when the end sent none (or only blanks). */
  readonly summary?: string;
}

export interface Identity {
  readonly confidence: number;
  readonly level: "low" | "medium" | "high" | "very_high";
  readonly sources: readonly string[];
  readonly recommendation: "reuse" | "confirm" | "ignore";
}

export interface OpenIntent {
  readonly intent: string;
  readonly attemptCount: number;
}

export interface StoredVariable {
  readonly value: string;
  readonly source: string | null;
  readonly ttlSeconds: number;
  readonly requiresVerification: boolean;
}

/** An intent as one call's end saved it. */
export interface CallIntent {
  readonly intent: string;
  readonly status: IntentStatus;
}

/** One of the customer's earlier calls that ended with a summary. */
export interface RecentCall {
  readonly callStart: Date;
  readonly callEnd: Date;
  readonly intents: readonly CallIntent[];
  readonly summary: string;
}

export interface StartCallResult {
  readonly callId: string;
  readonly customerRef: string;
  readonly callStart: Date;
  readonly identity: Identity;
  readonly openIntents: readonly OpenIntent[];
  readonly variables: Readonly<Record<string, StoredVariable>>;
  /** The latest summarised calls, newest first. */
  readonly recentCalls: readonly RecentCall[];
  /** Names of variables kept from a caller not verified (sorted). */
  readonly heldBackVariables: readonly string[];
}

export interface EndCallResult {
  readonly callId: string;
  readonly customerRef: string;
  readonly callStart: Date;
  readonly callEnd: Date;
  readonly durationSeconds: number;
  readonly intentsUpdated: number;
  readonly variablesUpdated: number;
}
