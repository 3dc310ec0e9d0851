import type { Readable } from "node:stream";
import { errorCodes, type FastifyRequest } from "fastify";

// Reads a request body up to the body limit, as text. A route that takes large
// bodies (config.largeBodies) gets, past the limit, the bytes read so far and
// the rest of the stream unread instead of a 413: a platform's audio message
// is acknowledged without ever being held whole.

/** The body as text (undefined when its bytes are not UTF-8), or the start of a body past the limit. */
export interface BodyText {
  readonly text: string | undefined;
  /** Sent as a form (application/x-www-form-urlencoded). */
  readonly form: boolean;
  readonly large?: { readonly head: Buffer; readonly rest: Readable };
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

export function bodyReader(limit: number, form: boolean) {
  return (request: FastifyRequest, payload: Readable, done: (error: Error | null, body?: BodyText) => void) => {
    const largeAllowed = (request.routeOptions.config as { largeBodies?: boolean } | undefined)?.largeBodies === true;
    if (!largeAllowed && Number(request.headers["content-length"]) > limit) {
      return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      payload.off("data", onData);
      payload.off("end", onEnd);
      payload.off("error", onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
      if (size <= limit) return;
      stop();
      payload.pause();
      if (!largeAllowed) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      done(null, { text: undefined, form, large: { head: Buffer.concat(chunks), rest: payload } });
    };
    const onEnd = () => {
      stop();
      let text: string | undefined;
      try {
        // Bytes that are not UTF-8 would otherwise be stored as U+FFFD without a word.
        text = UTF8.decode(Buffer.concat(chunks));
      } catch {}
      done(null, { text, form });
    };
    const onError = (error: Error) => {
      stop();
      done(error);
    };
    payload.on("data", onData);
    payload.on("end", onEnd);
    payload.on("error", onError);
  };
}
