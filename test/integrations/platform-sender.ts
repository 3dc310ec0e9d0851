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
  /** The same, to another instance of the service. */
  sendTo(baseUrl: string, payload: string, kind: Signing["kind"]): Promise<JsonResponse>;
  inbound(callId?: string): Promise<JsonResponse>;
  /** One signed request, sent as often as the returned function is called: a replay sends it again as it was. */
  signed(payload: string, kind: Signing["kind"]): Promise<() => Promise<JsonResponse>>;
  inboundPayload(callId: string): string;
  /** The end-of-call report of a call whose inbound got `inboundReply`. */
  endPayload(callId: string, inboundReply: unknown): string;
  ignored(): Promise<JsonResponse>;
  /** A message the service only acknowledges, of about `bytes`. */
  large(bytes: number, options?: { bad?: boolean }): Promise<JsonResponse>;
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
  return platformSender(baseUrl, platform, {
    accountId,
    path: created.body.integration.webhook_path,
    webhookSecret: created.body.webhook_secret,
    nowMs: options.nowMs,
  });
}

/** A sender for an integration that exists already. */
export function platformSender(
  baseUrl: string,
  platform: PlatformCase,
  integration: { accountId: string; path: string; webhookSecret: string; nowMs?: () => number },
): PlatformSender {
  const { accountId, path } = integration;
  const secrets = { webhookSecret: integration.webhookSecret, signingSecret: String(platform.create.signing_secret) };
  const nowMs = integration.nowMs ?? (() => Date.now());
  const withCallId = (payload: string, callId: string) =>
    platform.fixtureCallId === undefined ? payload : payload.replaceAll(platform.fixtureCallId, callId);

  const sendTo = async (
    to: string,
    payload: string,
    kind: Signing["kind"],
    how: { bad?: boolean; unsigned?: boolean } = {},
  ) => {
    const signing = { payload, secrets, kind, nowMs: nowMs(), url: new URL(path, to).toString() };
    const credentials = how.unsigned
      ? {}
      : how.bad
        ? await platform.badHeaders(signing)
        : await platform.headers(signing);
    return request(to, "POST", path, {
      rawBody: payload,
      headers: { "content-type": platform.contentType, ...credentials },
    });
  };
  const send: PlatformSender["send"] = (payload, kind, how) => sendTo(baseUrl, payload, kind, how);
  return {
    accountId,
    path,
    secrets,
    send,
    sendTo: (to, payload, kind) => sendTo(to, payload, kind),
    async signed(payload, kind) {
      const signing = { payload, secrets, kind, nowMs: nowMs(), url: new URL(path, baseUrl).toString() };
      const headers = { "content-type": platform.contentType, ...(await platform.headers(signing)) };
      return () => request(baseUrl, "POST", path, { rawBody: payload, headers });
    },
    inbound: (callId = newCallId()) => send(withCallId(platform.inbound, callId), "inbound"),
    inboundPayload: (callId) => withCallId(platform.inbound, callId),
    endPayload: (callId, inboundReply) =>
      platform.endPayload?.(platform.end, inboundReply) ?? withCallId(platform.end, callId),
    ignored: () => send(platform.ignored, "ignored"),
    large: async (bytes, how = {}) => {
      const { payload, contentType } = platform.large(bytes);
      const signing = {
        payload,
        secrets,
        kind: "ignored" as const,
        nowMs: nowMs(),
        url: new URL(path, baseUrl).toString(),
      };
      const credentials = platform.largeHeaders
        ? await platform.largeHeaders(signing, how.bad === true)
        : how.bad
          ? await platform.badHeaders(signing)
          : await platform.headers(signing);
      return request(baseUrl, "POST", path, {
        rawBody: payload,
        headers: { "content-type": contentType, ...credentials },
      });
    },
  };
}
