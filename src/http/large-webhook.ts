import type { Readable } from "node:stream";
import type { FastifyRequest } from "fastify";
import { ignorableType, LARGE_BODY_HEAD_BYTES } from "../integrations/large-webhook.ts";
import { PLATFORM_ADAPTERS } from "../integrations/platforms/platform-adapters.ts";
import { body as httpError } from "../pipeline/error-response.ts";
import { headersFrom } from "../pipeline/headers.ts";
import type { WebhookVerifier } from "../pipeline/verifiers.ts";
import { WEBHOOK_BASIC_CHALLENGE, WEBHOOK_REFUSED_MESSAGE } from "../pipeline/verifiers.ts";

/** What a route answers itself for a body past the limit. */
export interface LargeBodyAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

export type LargeBodyHandler = (request: FastifyRequest, head: Buffer, rest: Readable) => Promise<LargeBodyAnswer>;

/**
 * A platform webhook past the body limit: acknowledged, as any message the
 * service only acknowledges, when its start names such a message type and its
 * credential checks out over the whole stream; a message the service reads
 * keeps the limit (413). Nothing of it is kept, billed or rate limited.
 */
export function largeWebhookHandler(webhooks: WebhookVerifier): LargeBodyHandler {
  return async (request, head, rest): Promise<LargeBodyAnswer> => {
    const tooLarge = httpError(413, "Request body is too large");
    const { webhook_id: webhookId } = request.params as { webhook_id?: string };
    const url = `${request.protocol}://${request.host}${request.url}`;
    const named = await webhooks.streamingCheck(webhookId ?? "", headersFrom(request.headers), url);
    const types = named === undefined ? undefined : PLATFORM_ADAPTERS[named.integration.platform].messageTypes;
    const type = types && ignorableType(types, head.subarray(0, LARGE_BODY_HEAD_BYTES).toString("utf8"));
    if (named === undefined || type === undefined) {
      // Read and dropped, up to a bound, so the client reads the answer before the connection closes (closing
      // on unread bytes resets it, and the 413 is lost with it).
      drain(rest, DRAIN_MAX_BYTES);
      return { ...tooLarge, headers: { connection: "close" } };
    }
    named.check.update(head);
    for await (const chunk of rest) named.check.update(chunk as Buffer);
    if (!named.check.matches()) {
      const refused = httpError(401, WEBHOOK_REFUSED_MESSAGE);
      return { ...refused, headers: { "www-authenticate": WEBHOOK_BASIC_CHALLENGE } };
    }
    return { status: 200, body: { status: "ignored", type } };
  };
}

/** How much of a refused large body is read and dropped before the connection is cut. */
const DRAIN_MAX_BYTES = 16 * 1024 * 1024;

function drain(stream: Readable, maxBytes: number): void {
  let read = 0;
  stream.on("data", (chunk: Buffer) => {
    read += chunk.length;
    if (read > maxBytes) stream.destroy();
  });
  stream.on("error", () => {});
  stream.resume();
}
