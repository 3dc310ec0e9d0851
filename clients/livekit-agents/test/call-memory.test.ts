import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { createCallerContextClient, type Protocol, Recommendation, type ValidationError } from "@caller-context/client";
import { createCallMemory } from "@caller-context/livekit-agents";
import { initializeLogger, JobContext, llm, voice } from "@livekit/agents";
import { Room } from "@livekit/rtc-node";
import { useTestServer } from "caller-context-test-helpers/test-server-fixture.ts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

const fixture = useTestServer();
const PROTOCOLS: readonly Protocol[] = ["connect", "grpc"];

beforeAll(() => initializeLogger({ pretty: false, level: "silent" }));

const newNumber = () => `+1415${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;

/** The attributes LiveKit gives a SIP caller's participant, with one header the trunk maps. */
function sipAttributes(ani: string, accountNumber?: string): Record<string, string> {
  return {
    "sip.callID": `SCL_${randomUUID()}`,
    "sip.phoneNumber": ani,
    "sip.trunkPhoneNumber": "+18005550100",
    "sip.callStatus": "active",
    ...(accountNumber ? { "sip.h.x-account-number": accountNumber } : {}),
  };
}

describe.each(PROTOCOLS)("LiveKit Agents integration over %s", (protocol) => {
  let client: ReturnType<typeof createCallerContextClient>;
  beforeAll(() => {
    client = createCallerContextClient({ baseUrl: fixture.server.url, apiKey: fixture.apiKey, protocol });
  });
  afterAll(() => client.close());

  test("a SIP participant's attributes start the call and its context lands in a real ChatContext", async () => {
    const ani = newNumber();
    const account = `A-${randomUUID()}`;
    const earlier = await client.start({
      callId: `c-${randomUUID()}`,
      identityHints: { ani, externalIds: { account_number: account } },
    });
    await client.end({
      callId: earlier.callId,
      customerRef: earlier.customerRef,
      intentUpdates: [{ intent: "router_replacement", status: 1 }],
      variableUpdates: { preferred_name: { value: "Ann" }, last_call_summary: { value: "Router arrives Friday." } },
    });

    const memory = createCallMemory({
      client,
      participant: { attributes: sipAttributes(ani, account) },
      externalIds: { account_number: "sip.h.x-account-number" },
    });
    const started = await memory.start();
    expect(started?.customerRef).toBe(earlier.customerRef);
    expect(started?.identity?.recommendation).toBe(Recommendation.REUSE);

    const chatCtx = memory.chatContext();
    expect(chatCtx).toBeInstanceOf(llm.ChatContext);
    const [system] = chatCtx.items;
    expect(system).toMatchObject({ type: "message", role: "system" });
    const text = (system as llm.ChatMessage).textContent ?? "";
    expect(text).toContain("Known caller");
    expect(text).toContain("- router_replacement");
    expect(text).toContain("- preferred_name: Ann");
    expect(text).toContain("Summary of the last call: Router arrives Friday.");
    expect(memory.instructions("You are a support agent.")).toBe(`You are a support agent.\n\n${text}`);
  });

  /** A customer known by an account number, with a plan and a PIN-protected balance; and a call from a new number. */
  async function accountHolderCalling() {
    const account = `A-${randomUUID()}`;
    const known = await client.start({
      callId: `c-${randomUUID()}`,
      identityHints: { externalIds: { account_number: account } },
    });
    await client.end({
      callId: known.callId,
      customerRef: known.customerRef,
      variableUpdates: {
        plan: { value: "fibre_500" },
        balance_owed: { value: "eur_1234", requiresVerification: true },
      },
    });
    return { account, known };
  }

  /** Runs one model turn in which the caller says their account number and the model calls identify_caller. */
  async function sayAccountNumber(memory: ReturnType<typeof createCallMemory>, account: string): Promise<string> {
    const said = `My account number is ${account}`;
    const session = new voice.AgentSession({
      llm: new voice.testing.FakeLLM([
        {
          input: said,
          toolCalls: [{ name: "identify_caller", args: { account_number: account, phone_number: null } }],
        },
      ]),
    });
    await session.start({
      agent: new voice.Agent({ instructions: memory.instructions("You are a support agent."), tools: memory.tools }),
    });
    try {
      const result = session.run({ userInput: said });
      await result.wait();
      result.expect.containsFunctionCall({ name: "identify_caller" });
      return String(result.expect.containsFunctionCallOutput().event().item.output);
    } finally {
      await session.close();
    }
  }

  test("a spoken account number is a claim: identify goes unverified and what needs verification stays held back", async () => {
    const { account, known } = await accountHolderCalling();
    // A new number: the service cannot tell who this is until the caller gives their account number.
    const memory = createCallMemory({ client, participant: { attributes: sipAttributes(newNumber()) } });
    expect((await memory.start())?.identity?.recommendation).toBe(Recommendation.IGNORE);
    const output = await sayAccountNumber(memory, account);
    expect(memory.customerRef).toBe(known.customerRef);
    expect(memory.latest?.identity?.sources).not.toContain("verified");
    expect(memory.latest?.identity?.confidence).toBeLessThan(1);
    expect(output).toContain("- plan: fibre_500");
    expect(output).not.toContain("eur_1234");
    expect(memory.latest?.heldBackVariables).toEqual(["balance_owed"]);
    expect(output).toContain("Held back until the caller is verified");
    expect(output).toContain(": balance_owed");
  });

  test("identify is verified only when the application's own check says so", async () => {
    const refused = await accountHolderCalling();
    const claims: unknown[] = [];
    const doubting = createCallMemory({
      client,
      participant: { attributes: sipAttributes(newNumber()) },
      verifyCaller: async (claim) => {
        claims.push(claim);
        return false;
      },
    });
    await doubting.start();
    expect(await sayAccountNumber(doubting, refused.account)).not.toContain("eur_1234");
    expect(claims).toEqual([{ accountNumber: refused.account }]);
    expect(doubting.latest?.identity?.sources).not.toContain("verified");

    const checked = await accountHolderCalling();
    const trusting = createCallMemory({
      client,
      participant: { attributes: sipAttributes(newNumber()) },
      verifyCaller: async (claim) => claim.accountNumber === checked.account,
    });
    await trusting.start();
    const output = await sayAccountNumber(trusting, checked.account);
    expect(trusting.latest?.identity).toMatchObject({ confidence: 1, recommendation: Recommendation.REUSE });
    expect(trusting.latest?.identity?.sources[0]).toBe("verified");
    expect(output).toContain("- balance_owed: eur_1234");
  });

  test("the trunk's STIR/SHAKEN headers reach the start as telco.verstat and telco.attestation", async () => {
    const withHeaders = (verstat: string, attestation: string) =>
      createCallMemory({
        client,
        participant: {
          attributes: {
            ...sipAttributes(newNumber()),
            "sip.h.x-twilio-verstat": verstat,
            "sip.h.x-attestation": attestation,
          },
        },
        verstatAttribute: "sip.h.x-twilio-verstat",
        attestationAttribute: "sip.h.x-attestation",
        onStartFailed: (error) => refusals.push(error),
      });
    const refusals: unknown[] = [];
    expect(await withHeaders("TN-Validation-Passed-A", "a").start()).toBeDefined();
    // A form the service does not know is refused: proof that the header is what it was sent.
    expect(await withHeaders("pigeon-post", "a").start()).toBeUndefined();
    expect(await withHeaders("TN-Validation-Passed-A", "maybe").start()).toBeUndefined();
    const paths = (error: unknown) => (error as ValidationError).issues.map((issue) => issue.path.join("."));
    expect(refusals.map(paths)).toEqual([["telco.verstat"], ["telco.attestation"]]);
  });

  test("the job's shutdown callbacks end the call once, as the framework runs them before the job exits", async () => {
    const ani = newNumber();
    const ctx = new JobContext(
      {} as never,
      { job: { id: `job-${randomUUID()}`, room: { name: "test" } } } as never,
      new Room(),
      () => {},
      () => {},
      {} as never,
    );
    const memory = createCallMemory({ client, participant: { attributes: sipAttributes(ani) } });
    await memory.start();
    memory.recordIntent("billing_question", "open");
    const failures: unknown[] = [];
    memory.endOnShutdown(ctx, (error) => failures.push(error));
    expect(ctx.shutdownCallbacks).toHaveLength(1);
    for (const callback of ctx.shutdownCallbacks) await callback();
    expect(failures).toEqual([]);
    const next = await client.start({ callId: `c-${randomUUID()}`, identityHints: { ani } });
    expect(next.openIntents.map((open) => open.intent)).toEqual(["billing_question"]);
  });

  test("closing the session ends the call with what the agent recorded, and the next start sees it", async () => {
    const ani = newNumber();
    const memory = createCallMemory({ client, participant: { attributes: sipAttributes(ani) } });
    await memory.start();
    const said = "My internet keeps dropping";
    const session = new voice.AgentSession({
      llm: new voice.testing.FakeLLM([
        {
          input: said,
          toolCalls: [
            {
              name: "record_call_outcome",
              args: {
                intent: "connection_drops",
                status: "open",
                variables: [{ name: "router", value: "fritzbox_7590" }],
                summary: "Line checked; engineer visit to book.",
              },
            },
          ],
        },
      ]),
    });
    const endedOnClose = memory.endWhenClosed(session);
    await session.start({
      agent: new voice.Agent({ instructions: memory.instructions("Help."), tools: memory.tools }),
    });
    await session.run({ userInput: said }).wait();
    await session.close();
    const ended = await endedOnClose;
    expect(ended).toMatchObject({ intentsUpdated: 1, variablesUpdated: 1 });

    const next = await client.start({ callId: `c-${randomUUID()}`, identityHints: { ani } });
    expect(next.customerRef).toBe(memory.customerRef);
    expect(next.openIntents.map((open) => open.intent)).toEqual(["connection_drops"]);
    expect(next.variables.router?.value).toBe("fritzbox_7590");
    expect(next.recentCalls.map((call) => call.summary)).toEqual(["Line checked; engineer visit to book."]);
    // The next agent reads it in its context.
    const again = createCallMemory({ client, participant: { attributes: sipAttributes(ani) } });
    await again.start();
    expect(again.contextText).toMatch(
      /Earlier calls, newest first:\n- \d{4}-\d\d-\d\d: Line checked; engineer visit to book\./,
    );
  });
});

describe.each(PROTOCOLS)("a service that cannot help, over %s, never stops the call", (protocol) => {
  /** A TCP server that takes connections and never answers: a service slower than any budget. */
  let silent: Server;
  const held: Socket[] = [];
  beforeAll(async () => {
    silent = createServer((socket) => held.push(socket)).listen(0, "127.0.0.1");
    await once(silent, "listening");
  });
  afterAll(() => {
    for (const socket of held) socket.destroy();
    silent.close();
  });

  async function startAgainst(baseUrl: string) {
    const client = createCallerContextClient({ baseUrl, apiKey: fixture.apiKey, protocol });
    const failures: unknown[] = [];
    const memory = createCallMemory({
      client,
      participant: { attributes: sipAttributes(newNumber()) },
      startBudgetMs: 300,
      onStartFailed: (error) => failures.push(error),
    });
    try {
      const started = await memory.start();
      return { started, failures, memory, ended: await memory.end() };
    } finally {
      client.close();
    }
  }

  test("slower than the budget: start gives no context, says why once, and no end is sent", async () => {
    const { port } = silent.address() as { port: number };
    const { started, failures, memory, ended } = await startAgainst(`http://127.0.0.1:${port}`);
    expect(started).toBeUndefined();
    expect(failures).toHaveLength(1);
    expect(memory.instructions("You are a support agent.")).toBe("You are a support agent.");
    expect(memory.chatContext().items).toEqual([]);
    expect(ended).toBeUndefined();
  });

  test("a second start sends nothing and answers what the first did", async () => {
    const client = createCallerContextClient({ baseUrl: fixture.server.url, apiKey: fixture.apiKey, protocol });
    try {
      // A budget a busy machine meets: this test is about the second start, not the first one's time.
      const memory = createCallMemory({
        client,
        participant: { attributes: sipAttributes(newNumber()) },
        startBudgetMs: 20_000,
      });
      // Both at once, as an app calling start from two places would: one StartCall, whose second would be 409.
      const [first, second] = await Promise.all([memory.start(), memory.start()]);
      expect(first?.customerRef).toMatch(/^[0-9a-f-]{36}$/);
      expect(second).toBe(first);
      expect(await memory.start()).toBe(first);
    } finally {
      client.close();
    }
  });

  test("a participant that is not a SIP caller: no start, no crash, no end", async () => {
    const client = createCallerContextClient({ baseUrl: fixture.server.url, apiKey: fixture.apiKey, protocol });
    const failures: unknown[] = [];
    try {
      const memory = createCallMemory({
        client,
        participant: { attributes: { "lk.agent.state": "listening" } },
        onStartFailed: (error) => failures.push(error),
      });
      expect(await memory.start()).toBeUndefined();
      expect(failures.map((error) => (error as Error).name)).toEqual(["NotASipCallerError"]);
      expect(await memory.end()).toBeUndefined();
    } finally {
      client.close();
    }
  });

  test("down (nothing listens): the same", async () => {
    const closed = createServer().listen(0, "127.0.0.1");
    await once(closed, "listening");
    const { port } = closed.address() as { port: number };
    closed.close();
    const { started, failures, ended } = await startAgainst(`http://127.0.0.1:${port}`);
    expect(started).toBeUndefined();
    expect(failures).toHaveLength(1);
    expect(ended).toBeUndefined();
  });
});
