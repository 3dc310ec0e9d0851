import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

// A customer's event receiver on 127.0.0.1: it verifies every request with
// the Standard Webhooks package, as a customer would, and answers as the
// test scripts it: "ok" (204), "slow" (204 after SLOW_ANSWER_MS), "fail"
// (500) or "hang" (never answers).

export type Answer = "ok" | "slow" | "fail" | "hang";

/** How long a "slow" answer takes. */
export const SLOW_ANSWER_MS = 250;

export interface ReceivedEvent {
  readonly webhookId: string;
  readonly verified: boolean;
  readonly payload: any;
  readonly answer: Answer;
  /** The request as it came, to verify again with another secret. */
  readonly body: string;
  readonly headers: Record<string, string>;
}

export interface EventReceiver {
  readonly url: string;
  readonly received: ReceivedEvent[];
  /** The secret to verify with (set once the endpoint is created). */
  secret: string;
  /** Answers for the next requests, in order; "ok" once they are used up (or `otherwise`). */
  script(...answers: Answer[]): void;
  otherwise: Answer;
  /** Resolves once `count` requests matching `match` have arrived. */
  waitFor(count: number, match?: (event: ReceivedEvent) => boolean): Promise<ReceivedEvent[]>;
  close(): Promise<void>;
}

export async function startEventReceiver(): Promise<EventReceiver> {
  const received: ReceivedEvent[] = [];
  const scripted: Answer[] = [];
  const waiters = new Set<() => void>();
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    let verified = false;
    let payload: any;
    try {
      payload = new Webhook(receiver.secret).verify(body, req.headers as Record<string, string>);
      verified = true;
    } catch {
      payload = JSON.parse(body);
    }
    const answer = scripted.shift() ?? receiver.otherwise;
    const headers = req.headers as Record<string, string>;
    received.push({ webhookId: String(req.headers["webhook-id"]), verified, payload, answer, body, headers });
    for (const wake of waiters) wake();
    if (answer === "hang") {
      hanging.add(res);
      return;
    }
    if (answer === "slow") await new Promise((resolve) => setTimeout(resolve, SLOW_ANSWER_MS));
    res.writeHead(answer === "fail" ? 500 : 204).end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const receiver: EventReceiver = {
    url: `http://127.0.0.1:${port}/events`,
    received,
    secret: "",
    otherwise: "ok",
    script: (...answers) => void scripted.push(...answers),
    waitFor(count, match = () => true) {
      return new Promise((resolve) => {
        const check = () => {
          const matching = received.filter(match);
          if (matching.length >= count) {
            waiters.delete(check);
            resolve(matching);
          }
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
  return receiver;
}

/** Whether `secret` verifies the request (any one of its signatures), as a receiver holding only it would check. */
export function verifiesWith(event: ReceivedEvent, secret: string): boolean {
  try {
    new Webhook(secret).verify(event.body, event.headers);
    return true;
  } catch {
    return false;
  }
}
