import type { Readable } from "node:stream";
import type { DescMethod, DescMethodUnary, DescService } from "@bufbuild/protobuf";
import { getOption, hasOption } from "@bufbuild/protobuf";
import {
  type ConnectError,
  createHandlerContext,
  createServiceImplSpec,
  type Interceptor,
  type ServiceImplSpec,
} from "@connectrpc/connect";
import { invokeUnaryImplementation } from "@connectrpc/connect/protocol";
import { errorCodes, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { route as routeOption } from "../../gen/callercontext/v1/options_pb.ts";
import { decodeIssuesKey, restStatusKey } from "../pipeline/context-values.ts";
import {
  connectErrorToHttp,
  type HttpError,
  body as httpError,
  sendError as send,
} from "../pipeline/error-response.ts";
import { headersFrom, restHeaderObject } from "../pipeline/headers.ts";
import { publicError } from "../pipeline/public-error.ts";
import { enterMethod } from "../pipeline/request-scope.ts";
import { logUnexpected } from "../pipeline/unexpected-errors.ts";
import { decodeMessage, encodeMessage, type JsonIssue } from "./json-codec.ts";
import type { LargeBodyHandler } from "./large-webhook.ts";
import { scopeOf } from "./request-pipeline.ts";

// The generic REST adapter. Every RPC that declares a route in the proto
// (option (callercontext.v1.route)) becomes a JSON endpoint here, invoking the
// same implementation through the same interceptor chain as gRPC and Connect.

export interface RestService {
  readonly service: DescService;
  readonly implementation: object;
}

/** A route's raw-body field (proto name) and raw-response field (its localName), when it declares them. */
interface RawFields {
  readonly body: string;
  readonly responseField: string | undefined;
}

/** The admission control's refusal of a method before its body is read, if it refuses now. */
export type EarlyRefusal = (method: DescMethod) => ConnectError | undefined;

export interface RestRouteOptions {
  readonly bodyLimit: number;
  /** The admission control's refusal before a body is read. */
  readonly refuseEarly?: EarlyRefusal;
  /** Answers a raw-body route's body past the limit (a platform's large message) instead of a 413. */
  readonly largeBodies?: LargeBodyHandler;
}

export function registerRestRoutes(
  app: FastifyInstance,
  services: readonly RestService[],
  interceptors: Interceptor[],
  { bodyLimit, refuseEarly, largeBodies }: RestRouteOptions,
): void {
  // JSON, and forms for the raw-body routes (a platform's widget may send one); any other Content-Type is
  // answered 415 by Fastify, and a form sent to a JSON route by the handler.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", bodyReader(bodyLimit, false));
  app.addContentTypeParser("application/x-www-form-urlencoded", bodyReader(bodyLimit, true));

  for (const { service, implementation } of services) {
    const spec = createServiceImplSpec(service, implementation as never);
    for (const method of service.methods) {
      if (method.methodKind !== "unary" || !hasOption(method, routeOption)) continue;
      const { method: httpMethod, path, body, responseBody, additionalMethods } = getOption(method, routeOption);
      const responseField = method.output.fields.find((field) => field.name === responseBody)?.localName;
      const raw = body === "" ? undefined : { body, responseField };
      app.route({
        method: [httpMethod, ...additionalMethods] as ("GET" | "POST" | "DELETE")[],
        config: { largeBodies: raw !== undefined && largeBodies !== undefined },
        url: path.replace(/\{(\w+)\}/g, ":$1"),
        // Before the body is read: a refusal then costs no parse, decode or timer.
        onRequest:
          refuseEarly === undefined
            ? undefined
            : (request, reply, done) => {
                const refused = refuseEarly(method);
                if (refused === undefined) return done();
                enterMethod(scopeOf(request.raw), { protocol: "rest", method, route: path, code: refused.code });
                send(reply, connectErrorToHttp(refused));
              },
        handler: (request, reply) => {
          const large = (request.body as BodyText | undefined)?.large;
          if (large !== undefined && largeBodies !== undefined) return answerLarge(largeBodies, request, reply, large);
          return handle(spec, method as DescMethodUnary, path, interceptors, request, reply, raw);
        },
      });
    }
  }
}

async function handle(
  spec: ServiceImplSpec,
  method: DescMethodUnary,
  route: string,
  interceptors: Interceptor[],
  request: FastifyRequest,
  reply: FastifyReply,
  raw: RawFields | undefined,
) {
  const scope = scopeOf(request.raw);
  enterMethod(scope, { protocol: "rest", method, route });
  const issues: JsonIssue[] = [];
  // GET and DELETE take their fields from the query string: some clients and proxies drop a DELETE body.
  const fromQuery = request.method === "GET" || request.method === "DELETE";
  const body = fromQuery ? undefined : (request.body as BodyText | undefined);
  if (body?.form && raw === undefined) {
    return send(reply, httpError(415, "Content-Type must be application/json"));
  }
  let json: unknown;
  if (fromQuery && raw !== undefined) {
    // A raw-body route's GET: the query string is the body, as a form would have sent it.
    const query = request.url.indexOf("?");
    json = { [raw.body]: query < 0 ? "" : request.url.slice(query + 1) };
  } else if (fromQuery) {
    json = request.query;
  } else if (raw !== undefined) {
    // The body goes to one string field as sent; the implementation reads it.
    json = { [raw.body]: body?.text ?? "" };
    if (body?.text === undefined && body !== undefined) issues.push({ path: [], message: "Body is not UTF-8" });
  } else if (body !== undefined) {
    json = parseJson(body.text, issues);
  }
  if (json !== undefined && (typeof json !== "object" || json === null || Array.isArray(json))) {
    issues.push({ path: [], message: "Expected a JSON object" });
    json = undefined;
  }
  const params = request.params as Record<string, string>;
  const fields: Record<string, unknown> = { ...(json as object) };
  for (const name of Object.keys(params)) {
    // The path names the resource; a body naming it too would be one of two answers.
    if (Object.hasOwn(fields, name))
      issues.push({ path: [name], message: "Given by the path; not allowed in the body" });
    fields[name] = params[name];
  }
  const message = decodeMessage(method.input, fields, issues);

  const context = createHandlerContext({
    service: spec.service,
    method,
    protocolName: "rest",
    requestMethod: request.method,
    // The whole URL as the client addressed it (TRUST_PROXY decides whether X-Forwarded-Proto counts): a
    // platform that signs the URL (Twilio) signed this one.
    url: `${request.protocol}://${request.host}${request.url}`,
    requestSignal: scope.signal,
    requestHeader: headersFrom(request.headers),
    // Refused, with the body's other problems, after the guards and before the implementation (strictInput).
    contextValues: scope.values.set(decodeIssuesKey, issues),
  });
  const methodSpec = spec.methods[method.localName] as Parameters<typeof invokeUnaryImplementation>[0];
  try {
    const output = await invokeUnaryImplementation(methodSpec, context, message as never, interceptors);
    reply.code(context.values.get(restStatusKey)).headers(restHeaderObject(context.responseHeader));
    if (raw?.responseField !== undefined) {
      return reply.type("application/json").send(String((output as Record<string, unknown>)[raw.responseField]));
    }
    return reply.send(encodeMessage(method.output, output));
  } catch (thrown) {
    return send(reply, failed(request, thrown));
  }
}

async function answerLarge(
  handler: LargeBodyHandler,
  request: FastifyRequest,
  reply: FastifyReply,
  large: NonNullable<BodyText["large"]>,
) {
  enterMethod(scopeOf(request.raw), { protocol: "rest", route: request.routeOptions.url });
  try {
    const answer = await handler(request, large.head, large.rest);
    return reply
      .code(answer.status)
      .headers(answer.headers ?? {})
      .send(answer.body);
  } catch (thrown) {
    return send(reply, failed(request, thrown));
  }
}

/**
 * What failed, as its client is answered. What the chain threw was logged by its error boundary and is public by
 * now; only a failure outside it (reading or decoding the body) is logged here. request.log names the request.
 */
function failed(request: FastifyRequest, thrown: unknown): HttpError {
  logUnexpected(request.log, thrown, { route: request.routeOptions.url });
  return connectErrorToHttp(publicError(thrown));
}

/** An empty body is no body; text that is not JSON (or not UTF-8) is one issue. */
function parseJson(text: string | undefined, issues: JsonIssue[]): unknown {
  if (text === "") return undefined;
  try {
    if (text !== undefined) return JSON.parse(text);
  } catch {}
  issues.push({ path: [], message: "Malformed JSON" });
  return undefined;
}

// ---------------------------------------------------------------- reading the body

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
