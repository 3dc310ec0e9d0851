import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Platform } from "../../src/domain/integration.ts";
import { type CliEnv, runCli, runCliJson } from "../helpers/cli-runner.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// `caller-context simulate`: each platform's inbound and end-of-call report, sent by the command to a real
// integration on a real server. The service must accept the command's credentials (its checks are held to the
// platforms' SDKs in test/integrations), answer the inbound with the caller's context, and save the end so that
// the caller's next start hears it.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const cli = (args: string[], env?: CliEnv) => runCli(server.url, args, env);
const cliJson = (args: string[], env?: CliEnv) => runCliJson(server.url, args, env);

interface PlatformSetup {
  readonly platform: Platform;
  readonly inbound: string;
  /** A message the service only acknowledges. */
  readonly inCall: string;
  readonly end: string;
  /** `integrations create` flags beyond the account, platform and name. */
  readonly create: string[];
  /** The platform's own secret, as `simulate` signs with it. */
  readonly signingSecret?: string;
  /** Where the inbound answer keeps the caller's variables. */
  variablesOf(answer: any): Record<string, string>;
}

async function setups(): Promise<PlatformSetup[]> {
  // A local command: no server is asked (and none is up while the cases are collected).
  const telnyx = await runCliJson("http://127.0.0.1:9", ["telnyx-keys"]);
  return [
    {
      platform: "vapi",
      inbound: "assistant-request",
      inCall: "status-update",
      end: "end-of-call-report",
      create: ["--assistant-id", "asst_simulated"],
      variablesOf: (answer) => answer.assistantOverrides.variableValues,
    },
    {
      platform: "retell",
      inbound: "call_inbound",
      inCall: "call_started",
      end: "call_analyzed",
      create: ["--signing-secret", "key_retell_simulated_0123"],
      signingSecret: "key_retell_simulated_0123",
      variablesOf: (answer) => answer.call_inbound.dynamic_variables,
    },
    {
      platform: "elevenlabs",
      inbound: "conversation_initiation",
      inCall: "post_call_audio",
      end: "post_call_transcription",
      create: ["--signing-secret", "wsec_elevenlabs_simulated"],
      signingSecret: "wsec_elevenlabs_simulated",
      variablesOf: (answer) => answer.dynamic_variables,
    },
    {
      platform: "twilio_studio",
      inbound: "inbound",
      inCall: "progress",
      end: "end",
      create: ["--signing-secret", "0123456789abcdef0123456789abcdef"],
      signingSecret: "0123456789abcdef0123456789abcdef",
      variablesOf: (answer) => answer,
    },
    {
      platform: "telnyx",
      inbound: "assistant.initialization",
      inCall: "call.conversation.ended",
      end: "call.conversation_insights.generated",
      create: ["--signing-secret", telnyx.public_key],
      signingSecret: telnyx.private_key,
      variablesOf: (answer) => answer.dynamic_variables,
    },
  ];
}

describe("simulate", async () => {
  const platforms = await setups();

  test.each(platforms)(
    "$platform: the inbound answers with context, an in-call message is acknowledged, the end is saved for the next start",
    async (setup) => {
      const { accountId, apiKey } = await createAccountWithKey(server.url);
      const created = await cliJson([
        "integrations",
        "create",
        "--account",
        accountId,
        "--platform",
        setup.platform,
        "--name",
        "Simulated line",
        "--variables",
        "plan",
        "--store-summary",
        "yes",
        ...setup.create,
      ]);
      const env = {
        CALLER_CONTEXT_WEBHOOK_SECRET: created.webhook_secret,
        CALLER_CONTEXT_SIGNING_SECRET: setup.signingSecret,
      };
      const caller = `+1415555${String(1000 + platforms.indexOf(setup)).slice(-4)}`;
      const send = ["simulate", setup.platform, "--url", created.webhook_url, "--from", caller];

      const first = await cliJson([...send.slice(0, 2), setup.inbound, ...send.slice(2)], env);
      expect(first).toMatchObject({ platform: setup.platform, event: setup.inbound, status: 200 });
      expect(first.call_id).not.toBe("");
      expect(setup.variablesOf(first.answer)).toMatchObject({
        customer_ref: expect.stringMatching(/^[0-9a-f-]{36}$/),
        identity_recommendation: "ignore",
        no_context_reason: "",
        var_plan: "",
      });

      const during = await cliJson(
        [...send.slice(0, 2), setup.inCall, ...send.slice(2), "--call-id", first.call_id],
        env,
      );
      expect(during).toMatchObject({ event: setup.inCall, status: 200, answer: { status: "ignored" } });

      const summary = `Simulated ${setup.platform} call: the caller moved to the gold plan.`;
      const end = await cliJson(
        [
          ...send.slice(0, 2),
          setup.end,
          ...send.slice(2),
          "--call-id",
          first.call_id,
          "--intent",
          "plan_change",
          "--variables",
          "plan=gold,ignored=value",
          "--summary",
          summary,
        ],
        env,
      );
      expect(end).toMatchObject({ event: setup.end, call_id: first.call_id, status: 200 });

      // The caller's next call through the platform, and over the public API with a key of the same account and kind.
      const again = await cliJson([...send.slice(0, 2), setup.inbound, ...send.slice(2)], env);
      expect(setup.variablesOf(again.answer)).toMatchObject({
        customer_ref: setup.variablesOf(first.answer).customer_ref,
        open_intents: "plan_change (1 attempt)",
        last_call_summary: summary,
        var_plan: "gold",
      });
      const next = await post(server.url, "/v1/calls/start", apiKey, {
        call_id: `next-${setup.platform}`,
        identity_hints: { ani: caller },
      });
      expect(next.status).toBe(200);
      expect(next.body.open_intents.map((intent: { intent: string }) => intent.intent)).toEqual(["plan_change"]);
      expect(next.body.variables).toMatchObject({ plan: { value: "gold" } });
      expect(next.body.variables).not.toHaveProperty("ignored");
      expect(next.body.recent_calls[0]).toMatchObject({ summary });
    },
  );

  test("an unknown event is refused with the platform's events named, exit code 2", async () => {
    const result = await cli(["simulate", "vapi", "call-started", "--url", `${server.url}/v1/integrations/wh_x`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown event 'call-started' for vapi; the events are .*assistant-request/);
  });

  test("a platform that signs needs its secret, named by its flag", async () => {
    const result = await cli(["simulate", "retell", "call_inbound", "--url", `${server.url}/v1/integrations/wh_x`], {
      CALLER_CONTEXT_SIGNING_SECRET: undefined,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--signing-secret \(or CALLER_CONTEXT_SIGNING_SECRET\) is required to sign as retell/,
    );
  });

  test("a wrong webhook secret is the service's refusal, exit code 1", async () => {
    const { accountId } = await createAccountWithKey(server.url);
    const created = await cliJson([
      ...["integrations", "create", "--account", accountId, "--platform", "vapi", "--name", "Line"],
      ...["--assistant-id", "asst_x"],
    ]);
    const result = await cli(["simulate", "vapi", "assistant-request", "--url", created.webhook_url], {
      CALLER_CONTEXT_WEBHOOK_SECRET: "whsec_not_this_one",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/the service answered 401/);
  });
});
