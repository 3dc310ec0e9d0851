import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import { setQuota } from "../helpers/admin-client.ts";
import { createAccountWithKey, type JsonResponse, post, request } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import type { PlatformCase, Secrets, Signing } from "./platform-case.ts";

// One platform's integration on a running server, and its webhooks sent as
// the platform sends them: its content type, signed with its credentials at
// the time `nowMs` gives (the server's clock, when a test injects one).

export interface PlatformSender {
  readonly accountId: string;
  readonly path: string;
  readonly secrets: Secrets;
  send(payload: string, kind: Signing["kind"], options?: { bad?: boolean; unsigned?: boolean }): Promise<JsonResponse>;
  inbound(callId?: string): Promise<JsonResponse>;
  /** The end-of-call report of a call whose inbound got `inboundReply`. */
  endPayload(callId: string, inboundReply: unknown): string;
  ignored(): Promise<JsonResponse>;
}

export const newCallId = () => `CA${randomUUID().replaceAll("-", "")}`;

export async function connectPlatform(
  baseUrl: string,
  platform: PlatformCase,
  options: { tier?: string; credits?: number; nowMs?: () => number } = {},
): Promise<PlatformSender> {
  const { accountId } = await createAccountWithKey(baseUrl, { tier: options.tier ?? "growth" });
  await setQuota(baseUrl, accountId, options.credits ?? 100);
  const created = await post(baseUrl, `/admin/v1/accounts/${accountId}/integrations`, ADMIN_TOKEN, {
    platform: platform.platform,
    name: `${platform.platform} line`,
    ...platform.create,
  });
  expect(created.status).toBe(200);
  const path: string = created.body.integration.webhook_path;
  const secrets = { webhookSecret: created.body.webhook_secret, signingSecret: String(platform.create.signing_secret) };
  const nowMs = options.nowMs ?? (() => Date.now());
  const withCallId = (payload: string, callId: string) =>
    platform.fixtureCallId === undefined ? payload : payload.replaceAll(platform.fixtureCallId, callId);

  const send: PlatformSender["send"] = async (payload, kind, how = {}) => {
    const signing = { payload, secrets, kind, nowMs: nowMs(), url: new URL(path, baseUrl).toString() };
    const credentials = how.unsigned
      ? {}
      : how.bad
        ? await platform.badHeaders(signing)
        : await platform.headers(signing);
    return request(baseUrl, "POST", path, {
      rawBody: payload,
      headers: { "content-type": platform.contentType, ...credentials },
    });
  };
  return {
    accountId,
    path,
    secrets,
    send,
    inbound: (callId = newCallId()) => send(withCallId(platform.inbound, callId), "inbound"),
    endPayload: (callId, inboundReply) =>
      platform.endPayload?.(platform.end, inboundReply) ?? withCallId(platform.end, callId),
    ignored: () => send(platform.ignored, "ignored"),
  };
}
