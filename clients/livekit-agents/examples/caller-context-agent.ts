// A phone agent with a memory of its callers. Run it as any LiveKit agent (LIVEKIT_URL, LIVEKIT_API_KEY and
// LIVEKIT_API_SECRET set, a SIP trunk and dispatch rule sending calls to it), plus CALLER_CONTEXT_URL and
// CALLER_CONTEXT_API_KEY:
//   node examples/caller-context-agent.ts start    (or, while developing, LiveKit's `lk agent dev`)
import { fileURLToPath } from "node:url";
import { createCallerContextClient } from "@caller-context/client";
import { createCallMemory, waitForSipCaller } from "@caller-context/livekit-agents";
import { cli, defineAgent, inference, type JobContext, ServerOptions, voice } from "@livekit/agents";

const client = createCallerContextClient({
  baseUrl: process.env.CALLER_CONTEXT_URL ?? "http://127.0.0.1:8080",
  apiKey: process.env.CALLER_CONTEXT_API_KEY ?? "",
});

export default defineAgent({
  entry: async (ctx: JobContext) => {
    await ctx.connect();
    // The phone caller, not whichever participant joins first.
    const caller = await waitForSipCaller(ctx.room);
    const memory = createCallMemory({
      client,
      participant: caller,
      // The trunk maps the X-Account-Number header to the attribute sip.h.x-account-number.
      externalIds: { account_number: "sip.h.x-account-number" },
    });
    await memory.start();

    const session = new voice.AgentSession({
      stt: new inference.STT({ model: "deepgram/nova-3", language: "en" }),
      llm: new inference.LLM({ model: "openai/gpt-4.1-mini" }),
      tts: new inference.TTS({ model: "cartesia/sonic-3", voice: "9626c31c-bec5-4cca-baa8-f8ba9e84c8bc" }),
    });
    memory.endOnShutdown(ctx, (error) => console.error("caller context: end failed", error));
    await session.start({
      room: ctx.room,
      agent: new voice.Agent({
        instructions: memory.instructions(
          "You answer the phone for Acme Broadband support. Be brief. Before the call ends, call " +
            "record_call_outcome with the topic of the call and a one-sentence last_call_summary.",
        ),
        tools: memory.tools,
      }),
    });
    session.generateReply({ instructions: "Greet the caller; if you know their name, use it." });
  },
});

cli.runApp(new ServerOptions({ agent: fileURLToPath(import.meta.url) }));
