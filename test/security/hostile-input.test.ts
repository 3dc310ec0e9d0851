import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import v8 from "node:v8";
import vm from "node:vm";
import { gzipSync } from "node:zlib";
import { create, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { EndCallRequestSchema, StartCallRequestSchema } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { looksSensitive } from "../../src/domain/sensitive-data.ts";
import { type CallClient, createCallClient } from "../helpers/call-client.ts";
import { createGrpcClient } from "../helpers/grpc-client.ts";
import { callWithBytes, grpcFrame, postGrpcBody, type RawGrpcAnswer } from "../helpers/raw-grpc.ts";
import { createAccountWithKey, request } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// Thousands of generated requests, most of them hostile, against the two
// billable calls with a valid key, so that each one reaches the decoder and
// the validator. Every answer must be a 2xx or a 4xx in the spec's error shape
// (over gRPC: OK or a status that blames the request), within a bounded time,
// and the server must stay up, unpolluted and within its memory.

const BODY_LIMIT = 1024 * 1024;
const ANSWER_WITHIN_MS = 5_000;
const START = "/v1/calls/start";
const END = "/v1/calls/end";
const GRPC_START = "/callercontext.v1.CallerContextService/StartCall";
const GRPC_END = "/callercontext.v1.CallerContextService/EndCall";
/** gRPC statuses that would mean a server fault or a hang, never an answer to bad input. */
const SERVER_FAULTS = new Set([
  grpc.status.INTERNAL,
  grpc.status.UNKNOWN,
  grpc.status.UNAVAILABLE,
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.CANCELLED,
]);

let server: TestServer;
let apiKey: string;
let calls: CallClient;
let grpcClient: grpc.Client;
/** Calls started before the end properties run, so some generated ends reach the store. */
const started: { callId: string; customerRef: string }[] = [];
const tally = { rest: 0, grpc: 0, serverErrors: 0 };
const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

beforeAll(async () => {
  server = await startTestServer({
    // A start over its 1 s budget answers 503 by design; on a busy machine that
    // is timing, not input handling. The budgets are raised to this suite's bound.
    env: { START_BUDGET_MS: String(ANSWER_WITHIN_MS), END_BUDGET_MS: String(ANSWER_WITHIN_MS) },
  });
  // Scale: 10 000 requests a minute before the grace margin, more than this file sends.
  ({ apiKey } = await createAccountWithKey(server.url, { tier: "scale", quota: 1_000_000 }));
  calls = createCallClient(server.url);
  grpcClient = createGrpcClient(server.url);
  for (let i = 0; i < 40; i++) {
    const callId = `fuzz-started-${i}`;
    const res = await calls.start("rest", apiKey, { call_id: callId, identity_hints: { ani: `+1415555${1000 + i}` } });
    started.push({ callId, customerRef: res.body.customer_ref });
  }
});
afterAll(async () => {
  calls?.close();
  grpcClient?.close();
  await server?.stop();
});

// ---------------------------------------------------------------- REST: sending and judging

interface RestAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  readonly body: any;
  readonly ms: number;
}

/** POST with the valid key and JSON content type unless `headers` says otherwise (undefined removes one). */
async function post(
  path: string,
  body: string | Uint8Array | undefined,
  headers: Record<string, string | undefined> = {},
): Promise<RestAnswer> {
  const sent: Record<string, string> = {};
  for (const [name, value] of Object.entries({
    authorization: `Bearer ${apiKey}`,
    "content-type": "application/json",
    ...headers,
  })) {
    if (value !== undefined) sent[name] = value;
  }
  tally.rest++;
  const began = performance.now();
  const res = await fetch(new URL(path, server.url), {
    method: "POST",
    headers: sent,
    body: body as BodyInit | undefined,
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
  });
  const text = await res.text();
  const ms = performance.now() - began;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", text, body: parsed, ms };
}

/** A 2xx, or a 4xx in the spec's error shape; JSON either way; in time. */
function expectContractAnswer(answer: RestAnswer): void {
  const seen = `${answer.status} ${answer.text.slice(0, 300)}`;
  if (answer.status >= 500) tally.serverErrors++;
  expect((answer.status >= 200 && answer.status < 300) || (answer.status >= 400 && answer.status < 500), seen).toBe(
    true,
  );
  expect(answer.ms, seen).toBeLessThan(ANSWER_WITHIN_MS);
  expect(answer.contentType, seen).toMatch(/^application\/json/);
  expect(typeof answer.body === "object" && answer.body !== null && !Array.isArray(answer.body), seen).toBe(true);
  if (answer.status < 400) {
    expect(answer.body.call_id, seen).toBeTypeOf("string");
    expect(answer.body.customer_ref, seen).toBeTypeOf("string");
    return;
  }
  expect(answer.body.error, seen).toBe(STATUS_CODES[answer.status]);
  expect(answer.body.message, seen).toBeTypeOf("string");
  if (answer.status === 400) {
    const issues = answer.body.details?.issues;
    expect(Array.isArray(issues), seen).toBe(true);
    expect(issues.length, seen).toBeGreaterThan(0);
    for (const issue of issues) {
      expect(Array.isArray(issue.path) && issue.path.every((part: unknown) => typeof part === "string"), seen).toBe(
        true,
      );
      expect(issue.message, seen).toBeTypeOf("string");
    }
  }
}

function expectPrototypesUntouched(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.hasOwn(Object.prototype, "value")).toBe(false);
}

// ---------------------------------------------------------------- generators of JSON text

// Bodies are generated as JSON text, not as objects, so that duplicate keys,
// "__proto__" keys, \ud800 escapes and numbers like 1e400 reach the server as written.

const PROTO_KEYS = ["__proto__", "constructor", "prototype"];
const FIELD_NAMES = [
  "call_id",
  "identity_hints",
  "telco",
  "ani",
  "dnis",
  "external_ids",
  "customer_ref",
  "line_type",
  "intent",
  "intent_status",
  "variables",
  "intent_updates",
  "variable_updates",
  "status",
  "resolution",
  "value",
  "source",
  "ttl_seconds",
];
/** Astral, right-to-left, zero-width, combining, lone surrogates, NUL, separators. */
const ODD_CHARACTERS = [
  "\u0000",
  "\ud800",
  "\udfff",
  "\udbff\udfff",
  "\u200b",
  "\u200d",
  "\u200e",
  "\u200f",
  "\u202e",
  "\u2066",
  "\ufeff",
  "\ufffd",
  "\u0301",
  "\u2028",
  "\u0085",
  "\u007f",
  "𝔘𝔫𝔦",
  "👩‍👩‍👧‍👦",
  "مرحبا",
  "שלום",
  "\n",
  '"',
  "\\",
  "%00",
];

/** 1 to 30 characters of anything: a length every text field accepts, in any script or none. */
const shortText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ minLength: 1, maxLength: 30 }),
  fc.string({ unit: "binary", minLength: 1, maxLength: 15 }),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 8 }),
  fc.array(fc.constantFrom(...ODD_CHARACTERS), { minLength: 1, maxLength: 8 }).map((parts) => parts.join("")),
  fc.constantFrom(...PROTO_KEYS),
);
const text: fc.Arbitrary<string> = fc.oneof(
  shortText,
  fc.constant(""),
  // Past the field limits (128, 256, 1024 characters), in two-byte characters.
  fc.integer({ min: 120, max: 1100 }).map((n) => "é".repeat(n)),
);
const stringLiteral = text.map((value) => JSON.stringify(value));
const numberLiteral = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constantFrom("1e400", "-1e400", "-0", "0.1e-400", "123456789012345678901234567890", "4294967296", "-1", "1.5"),
);
const literal = fc.oneof(stringLiteral, numberLiteral, fc.constantFrom("true", "false", "null"));
const key = fc.oneof(fc.constantFrom(...PROTO_KEYS, ...FIELD_NAMES), text);

function objectText(entries: readonly (readonly [string, string])[]): string {
  return `{${entries.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(",")}}`;
}

const jsonValue = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: "small" }, literal, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 4 }).map((items) => `[${items.join(",")}]`),
  object: fc.array(fc.tuple(key, tie("value")), { maxLength: 4 }).map(objectText),
})).value;

function nested(depth: number, kind: "array" | "object" | "proto", leaf: string): string {
  if (kind === "array") return `${"[".repeat(depth)}${leaf}${"]".repeat(depth)}`;
  const open = kind === "object" ? '{"a":' : '{"__proto__":';
  return `${open.repeat(depth)}${leaf}${"}".repeat(depth)}`;
}
const deeplyNested = fc
  .tuple(fc.integer({ min: 1_000, max: 10_000 }), fc.constantFrom("array", "object", "proto" as const), literal)
  .map(([depth, kind, leaf]) => nested(depth, kind, leaf));

/** Anything at all where a field's value belongs: booleans, null, arrays, objects, numbers for strings... */
const hostileValue = fc.oneof({ weight: 6, arbitrary: jsonValue }, { weight: 1, arbitrary: deeplyNested });

/** Mostly a plausible value, sometimes anything. */
function field(plausible: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof({ weight: 4, arbitrary: plausible }, { weight: 1, arbitrary: hostileValue });
}

/** An object with some of `fields`, plus perhaps unknown, "__proto__" or repeated keys. */
function objectOf(fields: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<string> {
  return fc
    .tuple(fc.record(fields, { requiredKeys: [] }), fc.array(fc.tuple(key, hostileValue), { maxLength: 2 }))
    .map(([known, extra]) => objectText([...(Object.entries(known) as [string, string][]), ...extra]));
}

const json = (arbitrary: fc.Arbitrary<string>) => arbitrary.map((value) => JSON.stringify(value));
const phone = json(
  fc.oneof(fc.constantFrom("+14155550123", "14155550123", "(415) 555-0123", "+442071838750", "+18005550100"), text),
);
const uuidOrText = json(fc.oneof(fc.uuid(), text));
const stringMap = fc
  .array(fc.tuple(key, fc.oneof({ weight: 3, arbitrary: stringLiteral }, { weight: 1, arbitrary: hostileValue })), {
    maxLength: 4,
  })
  .map(objectText);
const identityHints = objectOf({
  ani: field(phone),
  dnis: field(phone),
  external_ids: field(stringMap),
  customer_ref: field(uuidOrText),
});
const intentStatus = json(fc.constantFrom("open", "resolved", "closed", "OPEN", "", "intent_status_open"));

/** Text PostgreSQL can store as sent: no NUL, no unpaired surrogate. */
const storable = (value: string) => !value.includes("\u0000") && value.isWellFormed();

/** Well-formed starts whose values are odd but of the right type and length: most reach the store. */
const plausibleStart = fc
  .record(
    {
      call_id: fc.tuple(fc.uuid(), fc.option(shortText)).map(([id, odd]) => `fuzz-${id}${odd ?? ""}`),
      identity_hints: fc.record(
        {
          ani: fc.oneof(fc.constantFrom("+14155550123", "14155550123", "+442071838750"), shortText),
          dnis: shortText,
          external_ids: fc.uniqueArray(fc.tuple(shortText, shortText), { selector: ([name]) => name, maxLength: 3 }),
          customer_ref: fc.oneof(fc.uuid(), shortText),
        },
        { requiredKeys: ["ani"] },
      ),
      telco: fc.record({ line_type: fc.constantFrom("mobile", "landline", "voip", "unknown") }, { requiredKeys: [] }),
    },
    { requiredKeys: ["call_id", "identity_hints"] },
  )
  .map(({ identity_hints: { external_ids, ...hints }, ...rest }) =>
    // external_ids as JSON text, so a "__proto__" name stays an entry.
    objectText([
      ...Object.entries(rest).map(([name, value]) => [name, JSON.stringify(value)] as const),
      [
        "identity_hints",
        objectText([
          ...Object.entries(hints).map(([name, value]) => [name, JSON.stringify(value)] as const),
          ...(external_ids
            ? [["external_ids", objectText(external_ids.map(([k, v]) => [k, JSON.stringify(v)]))] as const]
            : []),
        ]),
      ],
    ]),
  );

function hostileStart(): fc.Arbitrary<string> {
  return objectOf({
    call_id: field(
      json(
        fc.oneof(
          fc.uuid().map((id) => `fuzz-${id}`),
          text,
        ),
      ),
    ),
    identity_hints: field(identityHints),
    telco: field(
      objectOf({ line_type: field(json(fc.constantFrom("mobile", "landline", "voip", "unknown", "MOBILE", ""))) }),
    ),
  });
}

function startBodies(): fc.Arbitrary<string> {
  return fc.oneof(plausibleStart, hostileStart());
}

function endBodies(): fc.Arbitrary<string> {
  const known = started.map(({ callId }) => callId);
  const refs = started.map(({ customerRef }) => customerRef);
  const intentUpdate = objectOf({
    intent: field(stringLiteral),
    status: field(intentStatus),
    resolution: field(objectOf({ type: field(stringLiteral), external_reference: field(stringLiteral) })),
  });
  const variableUpdate = objectOf({
    value: field(stringLiteral),
    source: field(stringLiteral),
    ttl_seconds: field(fc.oneof(fc.integer({ min: -10, max: 8_000_000 }).map(String), numberLiteral)),
  });
  return objectOf({
    call_id: field(json(fc.oneof(fc.constantFrom(...known), text))),
    customer_ref: field(json(fc.oneof(fc.constantFrom(...refs), fc.uuid(), text))),
    identity_hints: field(identityHints),
    intent: field(stringLiteral),
    intent_status: field(intentStatus),
    variables: field(stringMap),
    intent_updates: field(fc.array(intentUpdate, { maxLength: 3 }).map((items) => `[${items.join(",")}]`)),
    variable_updates: field(fc.array(fc.tuple(key, variableUpdate), { maxLength: 3 }).map(objectText)),
  });
}

const route = fc.constantFrom(START, END);

// ---------------------------------------------------------------- REST properties

describe("REST: every hostile body gets a 2xx or a spec-shaped 4xx, as JSON, within 5 s", () => {
  test("start bodies, well-formed with odd text or with any value in any field, unknown and __proto__ keys", async () => {
    let stored = 0;
    await fc.assert(
      fc.asyncProperty(startBodies(), async (body) => {
        const answer = await post(START, body);
        expectContractAnswer(answer);
        if (answer.status === 200) stored++;
      }),
      { numRuns: 900 },
    );
    // The well-formed half must get past validation, or the store was never tried.
    expect(stored).toBeGreaterThan(150);
    expectPrototypesUntouched();
  }, 120_000);

  test("end bodies with any value in any field, some of them for calls that were started", async () => {
    await fc.assert(
      fc.asyncProperty(endBodies(), async (body) => {
        expectContractAnswer(await post(END, body));
      }),
      { numRuns: 700 },
    );
    expectPrototypesUntouched();
  }, 120_000);

  test("odd but storable text in intents and variables comes back unchanged; NUL and lone surrogates are a 400", async () => {
    const names = fc.uniqueArray(fc.tuple(shortText, shortText), {
      selector: ([name]) => name,
      minLength: 1,
      maxLength: 4,
    });
    let roundTrips = 0;
    await fc.assert(
      fc.asyncProperty(shortText, names, async (intent, variables) => {
        const hints = { external_ids: { fuzz: randomUUID() } };
        const callId = `fuzz-round-${randomUUID()}`;
        const first = await post(START, JSON.stringify({ call_id: callId, identity_hints: hints }));
        expectContractAnswer(first);
        expect(first.status).toBe(200);
        const endBody = objectText([
          ["call_id", JSON.stringify(callId)],
          ["customer_ref", JSON.stringify(first.body.customer_ref)],
          ["intent", JSON.stringify(intent)],
          ["intent_status", '"open"'],
          ["variables", objectText(variables.map(([name, value]) => [name, JSON.stringify(value)]))],
        ]);
        const ended = await post(END, endBody);
        expectContractAnswer(ended);
        const texts = [intent, ...variables.flat()];
        if (!texts.every(storable)) {
          expect(ended.status).toBe(400);
          expect(ended.body.details.issues).toContainEqual({
            path: expect.any(Array),
            message: "Must be valid Unicode text without NUL characters",
          });
          return;
        }
        // Names and intents are screened as values are.
        if (texts.some((text) => looksSensitive(text))) {
          expect(ended.status).toBe(400);
          return;
        }
        expect(ended.status, ended.text).toBe(200);
        const next = await post(
          START,
          JSON.stringify({ call_id: `${callId}-next`, identity_hints: hints, telco: { line_type: "mobile" } }),
        );
        expect(next.body.open_intents).toEqual([{ intent, status: "open", attempt_count: 1 }]);
        const expected = Object.fromEntries(
          variables.map(([name, value]) => [name, { value, source: null, ttl_seconds: 2592000 }]),
        );
        expect(next.body.variables).toEqual(expected);
        roundTrips++;
      }),
      { numRuns: 250 },
    );
    expect(roundTrips).toBeGreaterThan(100);
    expectPrototypesUntouched();
  }, 120_000);

  test("JSON text that is truncated, repeats keys, or is not quite JSON is a 400", async () => {
    const mutation = fc.constantFrom(
      "truncated",
      "repeated keys",
      "byte order mark",
      "trailing garbage",
      "comment",
      "single quotes",
      "inserted character",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(startBodies(), endBodies()),
        route,
        mutation,
        fc.nat(),
        fc.constantFrom(...ODD_CHARACTERS, "{", "}", "[", ",", ":"),
        async (body, path, how, at, character) => {
          const cut = at % Math.max(1, body.length);
          const mutated = {
            truncated: body.slice(0, cut),
            "repeated keys": `{"call_id":1,"call_id":"twice",${body.slice(1)}`,
            "byte order mark": `\ufeff${body}`,
            "trailing garbage": `${body},}`,
            comment: `/* x */${body}`,
            "single quotes": body.replaceAll('"', "'"),
            "inserted character": body.slice(0, cut) + character + body.slice(cut),
          }[how];
          const answer = await post(path, mutated);
          expectContractAnswer(answer);
          // Text that is no longer JSON (or an empty body: a request without call_id) is a 400.
          if (how !== "repeated keys" && how !== "inserted character" && how !== "byte order mark") {
            expect(answer.status).toBe(400);
          }
        },
      ),
      { numRuns: 500 },
    );
  }, 120_000);

  test("a repeated key counts once: the last value stands, as in JSON.parse", async () => {
    const callId = `fuzz-repeated-${Date.now()}`;
    const answer = await post(
      START,
      `{"call_id":"ignored","call_id":"${callId}","identity_hints":{"ani":1,"ani":"+14155550999"}}`,
    );
    expectContractAnswer(answer);
    expect(answer.status).toBe(200);
    expect(answer.body.call_id).toBe(callId);
  });

  test("content types other than JSON are 415, and bytes that are not UTF-8 are a 400", async () => {
    const jsonTypes = [
      "application/json",
      "application/json; charset=utf-8",
      "application/json; charset=latin1",
      "APPLICATION/JSON",
      "application/json;;;",
    ];
    const otherTypes = [
      "text/plain",
      "text/json",
      "multipart/form-data; boundary=x",
      "application/x-www-form-urlencoded",
      "application/octet-stream",
      "application/vnd.api+json",
      "application/jsonx",
      "",
    ];
    // Invalid UTF-8: a stray continuation byte, 0xff, an overlong NUL, an encoded surrogate, past U+10FFFF, cut short.
    const invalidUtf8 = fc.constantFrom(
      [0x80],
      [0xff],
      [0xc0, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
    );
    const notUtf8Json = fc
      .tuple(invalidUtf8, fc.constantFrom("call_id", "ani", "value"))
      .map(([bytes, where]) =>
        Buffer.concat([
          Buffer.from(where === "call_id" ? '{"call_id":"x' : '{"call_id":"x","identity_hints":{"ani":"+1'),
          Buffer.from(bytes),
          Buffer.from(where === "call_id" ? '","identity_hints":{"ani":"+14155550123"}}' : '"}}'),
        ]),
      );
    await fc.assert(
      fc.asyncProperty(
        route,
        fc.constantFrom(...jsonTypes, ...otherTypes, undefined),
        fc.oneof(
          startBodies().map((body) => ({ kind: "json", bytes: Buffer.from(body) })),
          notUtf8Json.map((bytes) => ({ kind: "not utf-8", bytes })),
          fc.uint8Array({ maxLength: 2048 }).map((bytes) => ({ kind: "random", bytes: Buffer.from(bytes) })),
          fc.constant({ kind: "empty", bytes: Buffer.alloc(0) }),
        ),
        async (path, contentType, { kind, bytes }) => {
          const answer = await post(path, bytes, { "content-type": contentType });
          expectContractAnswer(answer);
          if (contentType !== undefined && otherTypes.includes(contentType)) expect(answer.status).toBe(415);
          if (contentType !== undefined && jsonTypes.includes(contentType)) {
            expect(answer.status).not.toBe(415);
            if (kind === "not utf-8")
              expect(answer.body.details.issues).toContainEqual({ path: [], message: "Malformed JSON" });
          }
        },
      ),
      { numRuns: 400 },
    );
  }, 120_000);

  test("odd Idempotency-Key and Authorization headers get 2xx, 400, 401 or 431, never more", async () => {
    const validAuthorization = [
      `Bearer ${apiKey}`,
      `bearer ${apiKey}`,
      `BEARER ${apiKey}`,
      `Bearer   ${apiKey}`,
      `Bearer ${apiKey}  `,
    ];
    const invalidAuthorization = [
      "",
      "Bearer",
      "Bearer ",
      apiKey,
      `Basic ${apiKey}`,
      `Token ${apiKey}`,
      `Bearer ${apiKey}x`,
      `Bearer ${apiKey.slice(0, -1)}`,
      `Bearer ${apiKey.toUpperCase()}`,
      `Bearer ${apiKey}, Bearer ${apiKey}`,
      `Bearer\u00a0${apiKey}`,
      `Bearer sk_test_${"A".repeat(200)}`,
      `Bearer sk_prod_${"0".repeat(32)}`,
      `Bearer sk_live_${"0".repeat(40)}`,
      `Bearer ${"é".repeat(100)}`,
    ];
    const oversized = `Bearer ${"x".repeat(17_000)}`;
    const idempotencyKey = fc.oneof(
      fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 300 }),
      fc.string({ unit: fc.integer({ min: 0xa0, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
      fc.integer({ min: 250, max: 260 }).map((n) => "k".repeat(n)),
      fc.constant("k".repeat(17_000)),
    );
    await fc.assert(
      fc.asyncProperty(
        route,
        fc.constantFrom(...validAuthorization, ...invalidAuthorization, oversized),
        fc.option(idempotencyKey),
        fc.boolean(),
        async (path, authorization, key, legacyName) => {
          const headers: Record<string, string> = { authorization };
          if (key !== null) headers[legacyName ? "x-idempotency-key" : "idempotency-key"] = key;
          const body = path === START ? '{"call_id":"","identity_hints":{}}' : '{"call_id":"","customer_ref":""}';
          const answer = await post(path, body, headers);
          expectContractAnswer(answer);
          const tooLarge = authorization.length + (key?.length ?? 0) > 16 * 1024;
          if (tooLarge) expect(answer.status).toBe(431);
          else if (invalidAuthorization.includes(authorization)) {
            expect(answer.body).toEqual({ error: "Unauthorized", message: "Invalid or missing API key" });
          } else expect(answer.status).toBe(400);
        },
      ),
      { numRuns: 400 },
    );
  }, 120_000);

  test("bodies nested 1 000 to 10 000 levels deep in any field are a 400", async () => {
    const positions = [
      (value: string) => `{"call_id":"x","identity_hints":${value}}`,
      (value: string) => `{"call_id":"x","identity_hints":{"external_ids":${value}}}`,
      (value: string) => `{"call_id":${value},"identity_hints":{"ani":"+1"}}`,
      (value: string) => `{"call_id":"x","customer_ref":"y","variables":{"a":${value}}}`,
      (value: string) => `{"call_id":"x","customer_ref":"y","intent_updates":${value}}`,
      (value: string) => value,
    ];
    await fc.assert(
      fc.asyncProperty(route, fc.constantFrom(...positions), deeplyNested, async (path, at, value) => {
        const answer = await post(path, at(value));
        expectContractAnswer(answer);
        expect(answer.status).toBe(400);
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  test("a body of more than 1 MiB is a 413, and one within it is not", async () => {
    await fc.assert(
      fc.asyncProperty(
        route,
        fc.integer({ min: BODY_LIMIT - 3_000, max: BODY_LIMIT + 3_000 }),
        fc.constantFrom("x", "é", "𝔘", "\\ud800"),
        async (path, size, unit) => {
          const head = '{"call_id":"x","customer_ref":"y","variables":{"v":"';
          const tail = '"}}';
          const unitBytes = Buffer.byteLength(unit);
          const body =
            head + unit.repeat(Math.max(0, Math.floor((size - head.length - tail.length) / unitBytes))) + tail;
          const answer = await post(path, body);
          expectContractAnswer(answer);
          if (Buffer.byteLength(body) > BODY_LIMIT) expect(answer.status).toBe(413);
          else expect(answer.status).toBe(400);
        },
      ),
      { numRuns: 24, endOnFailure: true },
    );
  }, 120_000);

  test("very many fields and very large arrays within 1 MiB are a 400 with a bounded list of issues", async () => {
    const shapes = [
      (n: number) => `{${Array.from({ length: n }, (_, i) => `"f${i}":${i}`).join(",")}}`,
      (n: number) =>
        `{"call_id":"x","customer_ref":"y","variables":{${Array.from({ length: n }, (_, i) => `"v${i}":"${i}"`).join(",")}}}`,
      (n: number) =>
        `{"call_id":"x","identity_hints":{"external_ids":{${Array.from({ length: n }, (_, i) => `"e${i}":"${i}"`).join(",")}}}}`,
      (n: number) => `{"call_id":"x","customer_ref":"y","intent_updates":[${Array(n).fill("{}").join(",")}]}`,
      (n: number) => `{"call_id":"x","customer_ref":"y","intent_updates":[${Array(n).fill("1").join(",")}]}`,
      (n: number) => `{"call_id":"x","customer_ref":"y","intent_updates":[${Array(n).fill("null").join(",")}]}`,
    ];
    await fc.assert(
      fc.asyncProperty(
        route,
        fc.constantFrom(...shapes),
        fc.integer({ min: 20_000, max: 100_000 }),
        async (path, shape, n) => {
          const body = shape(n);
          const answer = await post(path, body);
          expectContractAnswer(answer);
          if (Buffer.byteLength(body) > BODY_LIMIT) expect(answer.status).toBe(413);
          else {
            expect(answer.status).toBe(400);
            expect(answer.body.details.issues.length).toBeLessThanOrEqual(20);
          }
        },
      ),
      { numRuns: 24, endOnFailure: true },
    );
  }, 120_000);

  test("__proto__, constructor and prototype keys at every level pollute nothing", async () => {
    const positions: ((name: string, value: string, id: string) => [string, string])[] = [
      (name, value, id) => [
        START,
        `{"call_id":"${id}","identity_hints":{"ani":"+14155550123"},${JSON.stringify(name)}:${value}}`,
      ],
      (name, value, id) => [
        START,
        `{"call_id":"${id}","identity_hints":{"ani":"+14155550123",${JSON.stringify(name)}:${value}}}`,
      ],
      (name, value, id) => [
        START,
        `{"call_id":"${id}","identity_hints":{"external_ids":{${JSON.stringify(name)}:${value}}}}`,
      ],
      (name, value, id) => [
        START,
        `{"call_id":"${id}","identity_hints":{"ani":"+1"},"telco":{${JSON.stringify(name)}:${value}}}`,
      ],
      (name, value, id) => [END, `{"call_id":"${id}","customer_ref":"y",${JSON.stringify(name)}:${value}}`],
      (name, value, id) => [
        END,
        `{"call_id":"${id}","customer_ref":"y","variables":{${JSON.stringify(name)}:${value}}}`,
      ],
      (name, value, id) => [
        END,
        `{"call_id":"${id}","customer_ref":"y","variable_updates":{${JSON.stringify(name)}:${value}}}`,
      ],
      (name, value, id) => [
        END,
        `{"call_id":"${id}","customer_ref":"y","variable_updates":{"v":{${JSON.stringify(name)}:${value}}}}`,
      ],
      (name, value, id) => [
        END,
        `{"call_id":"${id}","customer_ref":"y","intent_updates":[{${JSON.stringify(name)}:${value}}]}`,
      ],
      (name, value, id) => [
        END,
        `{"call_id":"${id}","customer_ref":"y","intent_updates":[{"intent":"i","status":"open","resolution":{${JSON.stringify(name)}:${value}}}]}`,
      ],
    ];
    const values = [
      '"x"',
      '{"polluted":"yes"}',
      '{"prototype":{"polluted":"yes"}}',
      '{"value":"v"}',
      "[]",
      "null",
      "1",
    ];
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...positions),
        fc.constantFrom(...PROTO_KEYS),
        fc.constantFrom(...values),
        async (at, name, value) => {
          const [path, body] = at(name, value, `fuzz-proto-${++n}`);
          expectContractAnswer(await post(path, body));
          expectPrototypesUntouched();
        },
      ),
      { numRuns: 300 },
    );
  }, 120_000);
});

// ---------------------------------------------------------------- the names __proto__, constructor, prototype

describe.each(["rest", "grpc"] as const)("names such as __proto__ over %s", (via) => {
  test("a variable named __proto__ is stored and returned like any other name", async () => {
    const hints = { external_ids: { crm: `proto-${via}` } };
    const first = await calls.start(via, apiKey, { call_id: `proto-${via}-1`, identity_hints: hints });
    expect(first.status).toBe(200);
    const variables = JSON.parse('{"__proto__":"x","constructor":"c","prototype":"p"}');
    const ended = await calls.end(via, apiKey, {
      call_id: `proto-${via}-1`,
      customer_ref: first.body.customer_ref,
      variables,
    });
    expect(ended.status).toBe(200);
    expect(ended.body.variables_updated).toBe(3);
    const next = await calls.start(via, apiKey, {
      call_id: `proto-${via}-2`,
      identity_hints: hints,
      telco: { line_type: "mobile" },
    });
    expect(Object.keys(next.body.variables).sort()).toEqual(["__proto__", "constructor", "prototype"]);
    expect(Object.getOwnPropertyDescriptor(next.body.variables, "__proto__")?.value).toEqual({
      value: "x",
      source: null,
      ttl_seconds: 2592000,
    });
    expectPrototypesUntouched();
  });

  test("an external id named __proto__ identifies the caller like any other", async () => {
    const hints = JSON.parse(`{"external_ids":{"__proto__":"P-${via}"}}`);
    const first = await calls.start(via, apiKey, { call_id: `proto-id-${via}-1`, identity_hints: hints });
    expect(first.status).toBe(200);
    const next = await calls.start(via, apiKey, { call_id: `proto-id-${via}-2`, identity_hints: hints });
    expect(next.body.customer_ref).toBe(first.body.customer_ref);
    expect(next.body.identity.sources).toContain("external_id");
  });
});

test("a __proto__ key where the contract has no such field is a 400 Unknown field", async () => {
  const answer = await post(START, '{"call_id":"x","identity_hints":{"ani":"+1"},"__proto__":{"polluted":"yes"}}');
  expect(answer.status).toBe(400);
  expect(answer.body.details.issues).toContainEqual({ path: ["__proto__"], message: "Unknown field" });
  expectPrototypesUntouched();
});

// ---------------------------------------------------------------- gRPC

function expectGrpcAnswer(answer: RawGrpcAnswer): void {
  if (SERVER_FAULTS.has(answer.code)) tally.serverErrors++;
  expect(SERVER_FAULTS.has(answer.code), `${grpc.status[answer.code]}: ${answer.details}`).toBe(false);
}

async function sendBytes(path: string, payload: Buffer): Promise<RawGrpcAnswer> {
  tally.grpc++;
  const began = performance.now();
  const answer = await callWithBytes(
    grpcClient,
    path,
    payload,
    { authorization: `Bearer ${apiKey}` },
    ANSWER_WITHIN_MS,
  );
  expect(performance.now() - began).toBeLessThan(ANSWER_WITHIN_MS + 500);
  return answer;
}

/** Protobuf wire bytes built by hand: any field number, any wire type, lengths that lie. */
function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}
const fieldNumber = fc.oneof(fc.integer({ min: 0, max: 9 }), fc.constantFrom(2 ** 29 - 1, 2 ** 29, 1000));
const tag = (field: number, wireType: number) => varint(field * 8 + wireType);
const wireMessage = fc.letrec<{ message: Buffer; field: Buffer }>((tie) => ({
  message: fc.array(tie("field"), { maxLength: 6 }).map((parts) => Buffer.concat(parts)),
  field: fc.oneof(
    { depthSize: "small" },
    // A varint, perhaps cut off with its continuation bit still set.
    fc
      .tuple(fieldNumber, fc.nat(), fc.boolean())
      .map(([n, value, cut]) => Buffer.concat([tag(n, 0), cut ? Buffer.from([0xff, 0xff]) : varint(value)])),
    // Length-delimited, with a declared length that may not be the real one.
    fc
      .tuple(
        fieldNumber,
        fc.oneof(tie("message"), fc.uint8Array({ maxLength: 40 }).map(Buffer.from)),
        fc.integer({ min: -2, max: 3 }),
      )
      .map(([n, payload, skew]) => Buffer.concat([tag(n, 2), varint(Math.max(0, payload.length + skew)), payload])),
    // Fixed 64 and 32 bits, perhaps too short.
    fc.tuple(fieldNumber, fc.uint8Array({ maxLength: 8 })).map(([n, bytes]) => Buffer.concat([tag(n, 1), bytes])),
    fc.tuple(fieldNumber, fc.uint8Array({ maxLength: 4 })).map(([n, bytes]) => Buffer.concat([tag(n, 5), bytes])),
    // Groups (long gone from proto3) and wire types that do not exist.
    fc.tuple(fieldNumber, fc.integer({ min: 3, max: 7 })).map(([n, wireType]) => tag(n, wireType)),
    fc.uint8Array({ maxLength: 8 }).map(Buffer.from),
  ),
})).message;

const grpcText = fc.oneof(
  { weight: 20, arbitrary: text },
  { weight: 3, arbitrary: fc.constantFrom(...PROTO_KEYS) },
  { weight: 1, arbitrary: fc.integer({ min: 100_000, max: 1_200_000 }).map((n) => "x".repeat(n)) },
);
/** Maps whose keys may be "__proto__": Object.fromEntries makes them own entries. */
const grpcMap = <T>(value: fc.Arbitrary<T>) =>
  fc.array(fc.tuple(fc.oneof(fc.constantFrom(...PROTO_KEYS), text), value), { maxLength: 4 }).map(Object.fromEntries);
/** Mostly text a field accepts, sometimes anything, up to over 1 MiB. */
const grpcField = fc.oneof({ weight: 6, arbitrary: shortText }, { weight: 1, arbitrary: grpcText });
// A real number now and then, so that a fair share of the messages is valid and reaches the store (a random
// text is rarely a phone number: with text alone, fewer than 20 of 300 were accepted in some runs).
const grpcAni = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom("+14155550123", "+442071838750", "4155550199") },
  { weight: 1, arbitrary: grpcField },
);
const grpcHints = fc.record(
  { ani: grpcAni, dnis: grpcField, externalIds: grpcMap(grpcField), customerRef: grpcField },
  { requiredKeys: ["ani"] },
);

describe("gRPC: every malformed or hostile message gets OK or a status that blames the request, within 5 s", () => {
  test("random bytes as the protobuf message", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(GRPC_START, GRPC_END),
        fc.uint8Array({ maxLength: 512 }),
        async (path, bytes) => {
          expectGrpcAnswer(await sendBytes(path, Buffer.from(bytes)));
        },
      ),
      { numRuns: 300 },
    );
  }, 120_000);

  test("wrong wire types, truncated varints and lengths larger than what follows", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(GRPC_START, GRPC_END), wireMessage, async (path, bytes) => {
        expectGrpcAnswer(await sendBytes(path, bytes));
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  test("a message that does not parse is INVALID_ARGUMENT, not INTERNAL", async () => {
    for (const bytes of [[0xff, 0xff, 0xff], [0x0a, 0x80], [0x0a, 0x7f, 0x41], [0x08], [0x0a, 0x02, 0xc3, 0x28]]) {
      const answer = await sendBytes(GRPC_START, Buffer.from(bytes));
      expect(answer.code, answer.details).toBe(grpc.status.INVALID_ARGUMENT);
    }
  });

  test("valid messages with hostile values: huge strings, odd unicode, __proto__ map keys", async () => {
    const startMessage = fc
      .record(
        {
          callId: fc.oneof(
            { weight: 3, arbitrary: fc.uuid().map((id) => `fuzz-grpc-${id}`) },
            { weight: 1, arbitrary: grpcText },
          ),
          identityHints: grpcHints,
          // Mostly declared values, so that enough reach the store; the rest must be refused cleanly.
          telco: fc.record({ lineType: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: -1, max: 9 })) }),
        },
        { requiredKeys: ["callId", "identityHints"] },
      )
      .map((init) => ({
        path: GRPC_START,
        bytes: Buffer.from(toBinary(StartCallRequestSchema, create(StartCallRequestSchema, init as never))),
      }));
    const endMessage = fc
      .record(
        {
          callId: fc.oneof(fc.constantFrom(...started.map(({ callId }) => callId)), grpcText),
          customerRef: fc.oneof(fc.constantFrom(...started.map(({ customerRef }) => customerRef)), grpcText),
          identityHints: grpcHints,
          intent: grpcField,
          intentStatus: fc.oneof(fc.integer({ min: 0, max: 2 }), fc.integer({ min: -1, max: 9 })),
          variables: grpcMap(grpcField),
          intentUpdates: fc.array(
            fc.record({ intent: grpcText, status: fc.integer({ min: -1, max: 3 }) }, { requiredKeys: [] }),
            { maxLength: 25 },
          ),
          variableUpdates: grpcMap(
            fc.record({ value: grpcText, source: grpcText, ttlSeconds: fc.nat() }, { requiredKeys: [] }),
          ),
        },
        { requiredKeys: [] },
      )
      .map((init) => ({
        path: GRPC_END,
        bytes: Buffer.from(toBinary(EndCallRequestSchema, create(EndCallRequestSchema, init as never))),
      }));
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(startMessage, endMessage), async ({ path, bytes }) => {
        const answer = await sendBytes(path, bytes);
        expectGrpcAnswer(answer);
        if (bytes.length > BODY_LIMIT) expect(answer.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
        if (answer.code === grpc.status.OK) accepted++;
      }),
      { numRuns: 300, endOnFailure: true },
    );
    // Enough of them were valid to reach the store.
    expect(accepted).toBeGreaterThan(20);
    expectPrototypesUntouched();
  }, 120_000);

  // Connect answers a unary call that carries no message, or two, with
  // UNIMPLEMENTED (a cardinality violation); that too blames the request.
  test.each([
    {
      name: "a frame that declares more bytes than it carries",
      body: grpcFrame(Buffer.from([0x0a, 0x01, 0x61]), { declaredLength: 1000 }),
      status: "INVALID_ARGUMENT",
    },
    {
      name: "a compressed frame without grpc-encoding",
      body: grpcFrame(Buffer.from([0x0a, 0x01, 0x61]), { compressed: true }),
      status: "INVALID_ARGUMENT",
    },
    {
      name: "a gzip frame that is not gzip",
      body: grpcFrame(Buffer.from("not gzip at all"), { compressed: true }),
      encoding: "gzip",
      status: "INVALID_ARGUMENT",
    },
    {
      name: "a gzip frame cut short",
      body: grpcFrame(gzipSync(Buffer.alloc(10_000, 1)).subarray(0, 30), { compressed: true }),
      encoding: "gzip",
      status: "INVALID_ARGUMENT",
    },
    {
      name: "a gzip frame that inflates past 1 MiB",
      body: grpcFrame(gzipSync(Buffer.alloc(64 * BODY_LIMIT)), { compressed: true }),
      encoding: "gzip",
      status: "RESOURCE_EXHAUSTED",
    },
    { name: "a frame larger than 1 MiB", body: grpcFrame(Buffer.alloc(BODY_LIMIT + 1)), status: "RESOURCE_EXHAUSTED" },
    {
      name: "two messages for a unary method",
      body: Buffer.concat([grpcFrame(Buffer.alloc(0)), grpcFrame(Buffer.alloc(0))]),
      status: "UNIMPLEMENTED",
    },
    { name: "no message at all", body: Buffer.alloc(0), status: "UNIMPLEMENTED" },
    {
      name: "100 000 nested groups",
      body: grpcFrame(Buffer.concat(Array(100_000).fill(tag(99, 3)))),
      status: "INVALID_ARGUMENT",
    },
  ] as const)("$name is answered $status", async (framing) => {
    tally.grpc++;
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
    if ("encoding" in framing && framing.encoding) headers["grpc-encoding"] = framing.encoding;
    const answer = await postGrpcBody(server.url, GRPC_START, framing.body, headers, ANSWER_WITHIN_MS);
    expect(grpc.status[answer.code], answer.details).toBe(framing.status);
  });
});

// ---------------------------------------------------------------- afterwards

describe("after the hostile run", () => {
  test("repeating a batch of large hostile requests grows neither the heap nor the process", async () => {
    v8.setFlagsFromString("--expose-gc");
    const collectGarbage = vm.runInNewContext("gc") as () => void;
    const settled = () => {
      collectGarbage();
      return process.memoryUsage();
    };
    // Built once: what the server keeps of them is what is measured, not the test's own strings.
    const bigVariable = `{"call_id":"x","customer_ref":"y","variables":{"v":"${"m".repeat(BODY_LIMIT - 100)}"}}`;
    const deep = `{"call_id":"x","identity_hints":${nested(10_000, "array", "1")}}`;
    const manyIntents = `{"call_id":"x","customer_ref":"y","intent_updates":[${Array(100_000).fill("{}").join(",")}]}`;
    const bigMessage = Buffer.alloc(BODY_LIMIT - 100, 0x41);
    const batch = async () => {
      for (let i = 0; i < 5; i++) {
        expectContractAnswer(await post(END, bigVariable));
        expectContractAnswer(await post(START, deep));
        expectContractAnswer(await post(END, manyIntents));
        expectGrpcAnswer(await sendBytes(GRPC_START, bigMessage));
      }
    };
    // Caches, pools and the allocator settle within two rounds (the resident size
    // climbs by some 100 MB, then stays level).
    await batch();
    await batch();
    const before = settled();
    for (let round = 0; round < 3; round++) await batch();
    const after = settled();
    // Three rounds move some 36 MB of request bytes, several copies of each on the
    // server, as strings (heap) and buffers; keeping even one copy of half of
    // them would show. The resident size is not compared round to round: with
    // the embedded database's WebAssembly memory in this process it wanders by
    // well over 100 MB with the allocator, leak or not.
    expect(after.heapUsed - before.heapUsed).toBeLessThan(16 * 1024 * 1024);
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(16 * 1024 * 1024);
    // Server, embedded database and test client share this process; before the
    // request size limits it grew past 4.8 GB.
    expect(after.rss).toBeLessThan(2 * 1024 * 1024 * 1024);
  }, 180_000);

  test("the server still answers its health check and ordinary calls", async () => {
    const health = await request(server.url, "GET", "/v1/health");
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: "healthy", database: "connected" });
    const answer = await post(
      START,
      JSON.stringify({ call_id: `fuzz-after-${Date.now()}`, identity_hints: { ani: "+14155550100" } }),
    );
    expect(answer.status).toBe(200);
    expectPrototypesUntouched();
    expect(tally.serverErrors).toBe(0);
    console.log(
      `hostile input: ${tally.rest} REST requests, ${tally.grpc} gRPC messages, ${tally.serverErrors} server errors`,
    );
  });
});
