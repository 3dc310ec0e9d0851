import { type DescField, type DescMessage, fromJson, type JsonValue, ScalarType } from "@bufbuild/protobuf";
import { createAsyncIterable, type UniversalHandler, type UniversalHandlerFn } from "@connectrpc/connect/protocol";
import type { FieldIssue } from "../domain/domain-error.ts";
import { decodeIssuesKey } from "../pipeline/context-values.ts";

// Connect's JSON decoder stops at the first field it cannot read and answers with that one alone, before any
// interceptor runs. A Connect JSON request is read here first, field by field with the same decoder: what cannot
// be read is left out of the body and named in the request's decode issues, as the REST host does, so the chain
// runs as for any request (a caller without a valid key learns nothing about bodies) and one 400 names every
// offending field (the strict input interceptor, or the use case's own validation, refuses it).

export function withReadableConnectJson(handler: UniversalHandler, readMaxBytes: number): UniversalHandler {
  const handle: UniversalHandlerFn = async (request) => {
    const json = request.header.get("content-type")?.startsWith("application/json") === true;
    // Compressed bodies and anything but a Connect unary POST go to Connect's handler untouched.
    const plain = !request.header.has("content-encoding") && !request.header.has("connect-content-encoding");
    if (!json || !plain || request.method !== "POST" || !isAsyncIterable(request.body) || !request.contextValues) {
      return handler(request);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of request.body) {
      chunks.push(chunk);
      size += chunk.byteLength;
      // Past the limit, Connect's handler refuses the body as it would have.
      if (size > readMaxBytes) break;
    }
    const bytes = Buffer.concat(chunks);
    const parsed = size > readMaxBytes ? undefined : parseJson(bytes);
    if (!isObject(parsed)) return handler({ ...request, body: createAsyncIterable([bytes]) });
    const issues: FieldIssue[] = [];
    const body = readable(handler.method.input, parsed, [], issues);
    if (issues.length > 0) request.contextValues.set(decodeIssuesKey, issues);
    return handler({ ...request, body: body as JsonValue });
  };
  return Object.assign(handle, handler);
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    // Malformed: Connect's handler says so in its own words.
    return undefined;
  }
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<Uint8Array> =>
  typeof value === "object" && value !== null && Symbol.asyncIterator in value;

/** The fields of `json` that protobuf JSON can read into `desc`, each of the others named in `issues`. */
function readable(desc: DescMessage, json: Record<string, unknown>, path: string[], issues: FieldIssue[]) {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    const field = desc.fields.find((candidate) => candidate.jsonName === key || candidate.name === key);
    if (field === undefined) {
      issues.push({ path: [...path, key], message: "Unknown field" });
      continue;
    }
    const at = [...path, field.name];
    if (field.fieldKind === "message" && !isWellKnown(field.message) && isObject(value)) {
      kept[key] = readable(field.message, value, at, issues);
    } else if (value === null || reads(desc, key, value)) {
      kept[key] = value;
    } else {
      issues.push({ path: at, message: expected(field) });
    }
  }
  return kept;
}

function reads(desc: DescMessage, key: string, value: unknown): boolean {
  try {
    fromJson(desc, { [key]: value } as JsonValue);
    return true;
  } catch {
    return false;
  }
}

function expected(field: DescField): string {
  switch (field.fieldKind) {
    case "enum":
      return `Expected one of: ${field.enum.values
        .map((value) => value.name)
        .filter((name) => !name.endsWith("_UNSPECIFIED"))
        .join(", ")}`;
    case "scalar":
      return `Expected ${scalarName(field.scalar)}`;
    case "message":
      return "Expected an object";
    case "list":
      return "Expected an array";
    case "map":
      return "Expected an object";
  }
}

function scalarName(scalar: ScalarType): string {
  switch (scalar) {
    case ScalarType.STRING:
      return "a string";
    case ScalarType.BOOL:
      return "a boolean";
    case ScalarType.BYTES:
      return "base64";
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return "a number";
    default:
      return "an integer";
  }
}

const isWellKnown = (desc: DescMessage) => desc.typeName.startsWith("google.protobuf.");
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
