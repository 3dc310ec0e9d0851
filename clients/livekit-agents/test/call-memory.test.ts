import { randomUUID } from "node:crypto";
import { createCallerContextClient, type Protocol, Recommendation } from "@caller-context/client";
import { initializeLogger, llm, voice } from "@livekit/agents";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { useTestServer } from "../../../test/helpers/test-server-fixture.ts";
import { createCallMemory } from "../src/index.ts";

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
    expect(started.customerRef).toBe(earlier.customerRef);
    expect(started.identity?.recommendation).toBe(Recommendation.REUSE);

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

  test("the identify tool, called by the model in an AgentSession, identifies the caller as verified", async () => {
    const account = `A-${randomUUID()}`;
    const known = await client.start({
      callId: `c-${randomUUID()}`,
      identityHints: { externalIds: { account_number: account } },
    });
    await client.end({ callId: known.callId, customerRef: known.customerRef, variables: { plan: "fibre_500" } });

    // A new number: the service cannot tell who this is until the caller gives their account number.
    const memory = createCallMemory({ client, participant: { attributes: sipAttributes(newNumber()) } });
    const started = await memory.start();
    expect(started.identity?.recommendation).toBe(Recommendation.IGNORE);
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
      const output = result.expect.containsFunctionCallOutput().event().item;
      expect(output.output).toContain("- plan: fibre_500");
      expect(memory.customerRef).toBe(known.customerRef);
      expect(memory.latest?.identity).toMatchObject({ confidence: 1, recommendation: Recommendation.REUSE });
      expect(memory.latest?.identity?.sources[0]).toBe("verified");
    } finally {
      await session.close();
    }
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
                variables: [{ name: "last_call_summary", value: "Line checked; engineer visit to book." }],
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
    expect(next.variables.last_call_summary?.value).toBe("Line checked; engineer visit to book.");
  });
});
