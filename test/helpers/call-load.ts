import { setTimeout as sleep } from "node:timers/promises";
import { type CallClient, type CallOutcome, TRANSPORTS, type Transport } from "./call-client.ts";
import { type Caller, endBodyOf, newCaller, startBodyOf } from "./callers.ts";

// A steady load of starts and ends from several clients, each one caller after
// another (REST and gRPC in turn), every answer timed from the client's side.

/** A caller that got 503 waits a little, as a client honouring Retry-After would, but less. */
const PAUSE_AFTER_FAILURE_MS = 20;

export interface Answer {
  readonly op: "start" | "end";
  readonly via: Transport;
  /** performance.now() marks. */
  readonly sentAt: number;
  readonly answeredAt: number;
  readonly outcome?: CallOutcome;
  /** Set when no answer came (a transport error). */
  readonly error?: string;
}

export interface CallLoad {
  readonly answers: readonly Answer[];
  /** Callers whose end was answered 200. */
  readonly acknowledged: readonly Caller[];
  /** Lets each client finish the call it is on, then returns. */
  stop(): Promise<void>;
}

export function startCallLoad(client: CallClient, apiKeys: readonly string[]): CallLoad {
  const answers: Answer[] = [];
  const acknowledged: Caller[] = [];
  let stopped = false;

  const timed = async (op: Answer["op"], via: Transport, send: () => Promise<CallOutcome>): Promise<Answer> => {
    const sentAt = performance.now();
    let answer: Answer;
    try {
      answer = { op, via, sentAt, outcome: await send(), answeredAt: performance.now() };
    } catch (error) {
      answer = { op, via, sentAt, error: String(error), answeredAt: performance.now() };
    }
    answers.push(answer);
    return answer;
  };

  const drive = async (apiKey: string, worker: number) => {
    for (let i = 0; !stopped; i++) {
      const caller = newCaller(apiKey, `w${worker}`);
      const via = TRANSPORTS[(worker + i) % 2];
      const started = await timed("start", via, () => client.start(via, apiKey, startBodyOf(caller)));
      if (started.outcome?.status === 200) {
        const end = endBodyOf(caller, started.outcome.body.customer_ref);
        const ended = await timed("end", via, () => client.end(via, apiKey, end));
        if (ended.outcome?.status === 200) {
          acknowledged.push(caller);
          continue;
        }
      }
      await sleep(PAUSE_AFTER_FAILURE_MS);
    }
  };

  const workers = apiKeys.map(drive);
  return {
    answers,
    acknowledged,
    async stop() {
      stopped = true;
      await Promise.all(workers);
    },
  };
}

export const statusOf = (answer: Answer) => answer.outcome?.status ?? `no answer: ${answer.error}`;

export function tally(list: readonly Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of list) counts[statusOf(answer)] = (counts[statusOf(answer)] ?? 0) + 1;
  return counts;
}
