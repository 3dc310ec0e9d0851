import type { Platform } from "../../domain/integration.ts";
import type { SimulatedCall } from "./simulated-call.ts";

// Each platform's webhooks in the shape the platform sends them (as its API reference shows, and as the tests'
// fixtures under test/integrations/fixtures hold them, which test/cli/simulate-payloads.test.ts compares them
// with): the inbound that asks for the caller's context, a message sent during or after the call that the
// service only acknowledges, and the end-of-call report the service saves. Field names the service reads are the platforms'; the rest is there so
// that the body looks like the real one to anyone reading it.

/** The inbound asks for context, the end is saved, and any other message is only acknowledged. */
export type EventKind = "inbound" | "in-call" | "end";

export interface PlatformEvent {
  readonly kind: EventKind;
  readonly contentType: "application/json" | "application/x-www-form-urlencoded";
  body(call: SimulatedCall): string;
}

const JSON_TYPE = "application/json";
const json = (kind: EventKind, build: (call: SimulatedCall) => unknown): PlatformEvent => ({
  kind,
  contentType: JSON_TYPE,
  body: (call) => JSON.stringify(build(call)),
});
const form = (kind: EventKind, build: (call: SimulatedCall) => Record<string, string>): PlatformEvent => ({
  kind,
  contentType: "application/x-www-form-urlencoded",
  body: (call) => new URLSearchParams(build(call)).toString(),
});

/** The analysis fields: intent, its status and the variables, as one flat object. */
const analysis = (call: SimulatedCall) => ({
  intent: call.intent,
  intent_status: call.intentStatus,
  ...call.variables,
});
const iso = (ms: number) => new Date(ms).toISOString();
const seconds = (ms: number) => Math.floor(ms / 1000);
const CALL_LENGTH_MS = 95_000;

const vapiCall = (call: SimulatedCall, status: string) => ({
  id: call.callId,
  orgId: "org_simulated",
  type: "inboundPhoneCall",
  status,
  phoneCallProvider: "twilio",
  phoneCallTransport: "pstn",
  customer: { number: call.from },
});

export const PLATFORM_EVENTS: Readonly<Record<Platform, Readonly<Record<string, PlatformEvent>>>> = {
  vapi: {
    "assistant-request": json("inbound", (call) => ({
      message: {
        type: "assistant-request",
        timestamp: call.nowMs,
        call: vapiCall(call, "ringing"),
        phoneNumber: { number: call.to, provider: "twilio" },
        customer: { number: call.from },
      },
    })),
    "status-update": json("in-call", (call) => ({
      message: {
        type: "status-update",
        status: "in-progress",
        timestamp: call.nowMs,
        call: vapiCall(call, "in-progress"),
      },
    })),
    "end-of-call-report": json("end", (call) => ({
      message: {
        type: "end-of-call-report",
        timestamp: call.nowMs,
        endedReason: "customer-ended-call",
        call: vapiCall(call, "ended"),
        customer: { number: call.from },
        startedAt: iso(call.nowMs - CALL_LENGTH_MS),
        endedAt: iso(call.nowMs),
        analysis: { summary: call.summary, structuredData: analysis(call), successEvaluation: "true" },
      },
    })),
  },
  retell: {
    call_inbound: json("inbound", (call) => ({
      event: "call_inbound",
      call_inbound: { agent_id: "agent_simulated", agent_version: 1, from_number: call.from, to_number: call.to },
    })),
    call_started: json("in-call", (call) => ({ event: "call_started", call: { call_id: `call_${call.callId}` } })),
    call_analyzed: json("end", (call) => ({
      event: "call_analyzed",
      call: {
        call_type: "phone_call",
        from_number: call.from,
        to_number: call.to,
        direction: "inbound",
        call_id: `call_${call.callId}`,
        agent_id: "agent_simulated",
        call_status: "ended",
        // What the inbound answer set: Retell returns the call's metadata in every later event.
        metadata: { caller_context_call_id: call.callId },
        start_timestamp: call.nowMs - CALL_LENGTH_MS,
        end_timestamp: call.nowMs,
        duration_ms: CALL_LENGTH_MS,
        disconnection_reason: "user_hangup",
        call_analysis: { call_summary: call.summary, call_successful: true, custom_analysis_data: analysis(call) },
      },
    })),
  },
  elevenlabs: {
    conversation_initiation: json("inbound", (call) => ({
      caller_id: call.from,
      agent_id: "agent_simulated",
      called_number: call.to,
      call_sid: call.callId,
    })),
    // ElevenLabs sends nothing during a call; its audio arrives after the transcription, and is only acknowledged.
    post_call_audio: json("in-call", (call) => ({
      type: "post_call_audio",
      event_timestamp: seconds(call.nowMs),
      data: {
        agent_id: "agent_simulated",
        conversation_id: `conv_${call.callId}`,
        full_audio: "SUQzBAAAAAAAI1RTU0UAAAAP",
      },
    })),
    post_call_transcription: json("end", (call) => ({
      type: "post_call_transcription",
      event_timestamp: seconds(call.nowMs),
      data: {
        agent_id: "agent_simulated",
        conversation_id: `conv_${call.callId}`,
        status: "done",
        metadata: {
          start_time_unix_secs: seconds(call.nowMs - CALL_LENGTH_MS),
          call_duration_secs: seconds(CALL_LENGTH_MS),
          phone_call: {
            direction: "inbound",
            agent_number: call.to,
            external_number: call.from,
            type: "twilio",
            call_sid: call.callId,
          },
        },
        analysis: {
          data_collection_results: Object.fromEntries(
            Object.entries(analysis(call)).map(([id, value]) => [id, { data_collection_id: id, value }]),
          ),
          call_successful: "success",
          transcript_summary: call.summary,
        },
      },
    })),
  },
  twilio_studio: {
    inbound: form("inbound", (call) => ({ event: "inbound", call_sid: call.callId, from: call.from, to: call.to })),
    progress: form("in-call", (call) => ({ event: "progress", call_sid: call.callId })),
    end: form("end", (call) => ({
      event: "end",
      call_sid: call.callId,
      from: call.from,
      to: call.to,
      ...analysis(call),
      summary: call.summary,
    })),
  },
  telnyx: {
    "assistant.initialization": json("inbound", (call) => ({
      data: {
        record_type: "event",
        id: `event_${call.callId}`,
        event_type: "assistant.initialization",
        occurred_at: iso(call.nowMs),
        payload: {
          telnyx_conversation_channel: "phone_call",
          telnyx_agent_target: call.to,
          telnyx_end_user_target: call.from,
          telnyx_end_user_target_verified: false,
          call_control_id: call.callId,
          assistant_id: "assistant-simulated",
        },
      },
    })),
    "call.conversation.ended": json("in-call", (call) => ({
      data: { record_type: "event", event_type: "call.conversation.ended", payload: { call_control_id: call.callId } },
    })),
    "call.conversation_insights.generated": json("end", (call) => ({
      data: {
        record_type: "event",
        event_type: "call.conversation_insights.generated",
        id: `insights_${call.callId}`,
        occurred_at: iso(call.nowMs),
        payload: {
          call_control_id: call.callId,
          calling_party_type: "pstn",
          insight_group_id: "insight-group-simulated",
          results: [
            { insight_id: "insight-summary", result: call.summary },
            { insight_id: "insight-analysis", result: analysis(call) },
          ],
        },
      },
    })),
  },
};
