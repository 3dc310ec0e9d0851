import {
  create,
  type DescEnum,
  type DescField,
  type DescMessage,
  type DescMethod,
  getOption,
  type Message,
  ScalarType,
} from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { omit_empty } from "../../gen/callercontext/v1/options_pb.ts";
import { type FieldIssue, validationError } from "../domain/domain-error.ts";
import { decodeIssuesKey } from "../pipeline/context-values.ts";
import { domainErrorToConnect } from "../pipeline/public-error.ts";

// The contract's JSON, derived from the proto descriptors, for every message:
// snake_case names, enums as their short lower-case names ("mobile" for
// LINE_TYPE_MOBILE), timestamps as ISO 8601 with milliseconds, unset optional
// fields as null, implicit zero values present (but for a field marked
// omit_empty: an addition to a response the spec documents, left out while it
// is empty, so the documented response keeps its exact shape). Decoding is
// strict and reports each problem with its field path instead of stopping at
// the first; the last interceptor of the chain (strictInput, below) refuses a
// request with any.

export interface JsonIssue {
  path: string[];
  message: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const TIMESTAMP = "google.protobuf.Timestamp";

// ---------------------------------------------------------------- decoding

export function decodeMessage<Desc extends DescMessage>(
  desc: Desc,
  json: unknown,
  issues: JsonIssue[],
  path: string[] = [],
): Message {
  return create(desc, decodeFields(desc, json, issues, path) as never) as Message;
}

function decodeFields(desc: DescMessage, json: unknown, issues: JsonIssue[], path: string[]): Record<string, unknown> {
  const init: Record<string, unknown> = {};
  if (json === null || json === undefined) return init;
  if (!isObject(json)) {
    issues.push({ path, message: "Expected an object" });
    return init;
  }
  const fields = fieldsByName(desc);
  for (const key of Object.keys(json)) {
    const field = fields.get(key);
    const fieldPath = [...path, key];
    if (field === undefined) {
      issues.push({ path: fieldPath, message: "Unknown field" });
      continue;
    }
    const value = json[key];
    if (value === null) continue; // null means "not set", as in proto3 JSON
    const decoded = decodeField(field, value, issues, fieldPath);
    if (decoded !== undefined) init[field.localName] = decoded;
  }
  return init;
}

function decodeField(field: DescField, value: unknown, issues: JsonIssue[], path: string[]): unknown {
  switch (field.fieldKind) {
    case "scalar":
      return decodeScalar(field.scalar, value, issues, path);
    case "enum":
      return decodeEnum(field.enum, value, issues, path);
    case "message":
      return decodeNested(field.message, value, issues, path);
    case "list": {
      if (!Array.isArray(value)) return fail(issues, path, "Expected an array");
      const items: unknown[] = [];
      value.forEach((item, index) => {
        const itemPath = [...path, String(index)];
        const decoded = decodeElement(field, field.listKind, item, issues, itemPath);
        if (decoded !== undefined) items.push(decoded);
      });
      return items;
    }
    case "map": {
      if (!isObject(value)) return fail(issues, path, "Expected an object");
      // No prototype: a key such as "__proto__" stays an ordinary entry.
      const entries: Record<string, unknown> = Object.create(null);
      for (const key of Object.keys(value)) {
        const entryPath = [...path, key];
        const item = value[key];
        const decoded = decodeElement(field, field.mapKind, item, issues, entryPath);
        if (decoded !== undefined) entries[key] = decoded;
      }
      return entries;
    }
  }
}

/** One element of a list or one value of a map: the element kind picks the decoder. */
function decodeElement(
  field: DescField & { fieldKind: "list" | "map" },
  kind: "scalar" | "enum" | "message",
  item: unknown,
  issues: JsonIssue[],
  path: string[],
): unknown {
  if (kind === "message") return decodeNested(field.message as DescMessage, item, issues, path);
  if (kind === "enum") return decodeEnum(field.enum as DescEnum, item, issues, path);
  return decodeScalar(field.scalar as ScalarType, item, issues, path);
}

function decodeNested(desc: DescMessage, value: unknown, issues: JsonIssue[], path: string[]): unknown {
  if (desc.typeName === TIMESTAMP) {
    const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(ms)) return fail(issues, path, "Expected an ISO 8601 timestamp");
    return { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
  }
  if (!isObject(value)) return fail(issues, path, "Expected an object");
  return decodeFields(desc, value, issues, path);
}

function decodeScalar(type: ScalarType, value: unknown, issues: JsonIssue[], path: string[]): unknown {
  switch (type) {
    case ScalarType.STRING:
      return typeof value === "string" ? value : fail(issues, path, "Expected a string");
    case ScalarType.BOOL:
      return typeof value === "boolean" ? value : fail(issues, path, "Expected a boolean");
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return typeof value === "number" && Number.isFinite(value) ? value : fail(issues, path, "Expected a number");
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return isIntegerIn(value, 0, 0xffff_ffff) ? value : fail(issues, path, "Expected a non-negative integer");
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return isIntegerIn(value, -0x8000_0000, 0x7fff_ffff) ? value : fail(issues, path, "Expected an integer");
    default:
      // 64-bit integers and bytes do not occur in this API's messages.
      return fail(issues, path, "Unsupported field type");
  }
}

function decodeEnum(desc: DescEnum, value: unknown, issues: JsonIssue[], path: string[]): unknown {
  const number = typeof value === "string" ? enumNumbers(desc).get(value) : undefined;
  if (number === undefined) {
    return fail(issues, path, `Expected one of: ${enumChoices(desc)}`);
  }
  return number;
}

// ---------------------------------------------------------------- encoding

export function encodeMessage(desc: DescMessage, message: Message): Record<string, Json> {
  const json: Record<string, Json> = {};
  const record = message as unknown as Record<string, unknown>;
  for (const field of desc.fields) {
    const value = record[field.localName];
    if (omitsEmpty(field) && isEmpty(value)) continue;
    json[field.name] = encodeField(field, value);
  }
  return json;
}

const omitEmptyFields = new WeakMap<DescField, boolean>();

function omitsEmpty(field: DescField): boolean {
  let omits = omitEmptyFields.get(field);
  if (omits === undefined) {
    omits = getOption(field, omit_empty);
    omitEmptyFields.set(field, omits);
  }
  return omits;
}

/** A zero value: unset, false, 0, "", an empty list or map. */
function isEmpty(value: unknown): boolean {
  if (value === undefined || value === false || value === 0 || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && value !== null && Object.keys(value).length === 0;
}

function encodeField(field: DescField, value: unknown): Json {
  switch (field.fieldKind) {
    case "scalar":
      return value === undefined ? null : (value as Json);
    case "enum":
      return value === undefined ? null : encodeEnum(field.enum, value as number);
    case "message":
      return value === undefined ? null : encodeNested(field.message, value as Message);
    case "list":
      return (value as unknown[]).map((item) =>
        field.listKind === "message"
          ? encodeNested(field.message, item as Message)
          : field.listKind === "enum"
            ? encodeEnum(field.enum, item as number)
            : (item as Json),
      );
    case "map": {
      // No prototype, as in decoding: an entry named "__proto__" is kept, not swallowed.
      const out: Record<string, Json> = Object.create(null);
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        out[key] =
          field.mapKind === "message"
            ? encodeNested(field.message, item as Message)
            : field.mapKind === "enum"
              ? encodeEnum(field.enum, item as number)
              : (item as Json);
      }
      return out;
    }
  }
}

function encodeNested(desc: DescMessage, message: Message): Json {
  if (desc.typeName === TIMESTAMP) {
    const { seconds, nanos } = message as unknown as { seconds: bigint; nanos: number };
    return new Date(Number(seconds) * 1000 + Math.floor(nanos / 1_000_000)).toISOString();
  }
  return encodeMessage(desc, message);
}

function encodeEnum(desc: DescEnum, value: number): Json {
  return enumNames(desc).get(value) ?? null;
}

// ---------------------------------------------------------------- descriptor tables, built once

const fieldTables = new WeakMap<DescMessage, Map<string, DescField>>();
const enumTables = new WeakMap<DescEnum, { names: Map<number, string>; numbers: Map<string, number> }>();

function fieldsByName(desc: DescMessage): Map<string, DescField> {
  let table = fieldTables.get(desc);
  if (table === undefined) {
    table = new Map(desc.fields.map((field) => [field.name, field]));
    fieldTables.set(desc, table);
  }
  return table;
}

function enumTable(desc: DescEnum) {
  let table = enumTables.get(desc);
  if (table === undefined) {
    const prefix = desc.sharedPrefix ?? "";
    const names = new Map<number, string>();
    const numbers = new Map<string, number>();
    for (const value of desc.values) {
      if (value.number === 0) continue; // *_UNSPECIFIED has no JSON name: it means "not set"
      const lower = value.name.toLowerCase();
      const name = lower.startsWith(prefix) ? lower.slice(prefix.length) : lower;
      names.set(value.number, name);
      numbers.set(name, value.number);
    }
    table = { names, numbers };
    enumTables.set(desc, table);
  }
  return table;
}

function enumNames(desc: DescEnum): Map<number, string> {
  return enumTable(desc).names;
}

/** The contract's names of an enum's values, as REST reports them when a value is not one of them. */
export function enumChoices(desc: DescEnum): string {
  return [...enumNumbers(desc).keys()].join(", ");
}

function enumNumbers(desc: DescEnum): Map<string, number> {
  return enumTable(desc).numbers;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;
}

function fail(issues: JsonIssue[], path: string[], message: string): undefined {
  issues.push({ path, message });
  return undefined;
}

// ---------------------------------------------------------------- the strict check, on every protocol

// The last interceptor before every implementation, on every protocol: a
// request the REST host could not decode (wrong types, unknown fields,
// malformed JSON) or that carries an enum number outside its declared set
// (binary protobuf keeps unknown enum numbers) is refused here with 400 /
// INVALID_ARGUMENT, so no implementation ever sees it. It runs after the
// guards: a caller without a valid key learns nothing about valid bodies.

export interface StrictInputOptions {
  /**
   * Methods whose implementation refuses the decode issues itself, with its own validation's (every
   * offending field in one answer); the issues reach it in the context (decodeIssuesKey).
   */
  readonly validatedWithDecodeIssues: ReadonlySet<DescMethod>;
}

export function strictInput({ validatedWithDecodeIssues }: StrictInputOptions): Interceptor {
  return (next) => async (req) => {
    const issues: FieldIssue[] = [...req.contextValues.get(decodeIssuesKey)];
    if (issues.length > 0 && validatedWithDecodeIssues.has(req.method)) return next(req);
    if (issues.length === 0 && hasEnums(req.method.input)) {
      checkEnums(req.method.input, req.message as unknown as Record<string, unknown>, [], issues);
    }
    if (issues.length > 0) throw domainErrorToConnect(validationError(issues));
    return next(req);
  };
}

function checkEnums(desc: DescMessage, message: Record<string, unknown>, path: string[], issues: FieldIssue[]): void {
  for (const field of desc.fields) {
    if (!hasEnums(field)) continue;
    const value = message[field.localName];
    if (value === undefined) continue;
    const at = [...path, field.name];
    if (field.fieldKind === "enum") checkEnum(field.enum, value, at, issues);
    else if (field.fieldKind === "message") checkEnums(field.message, value as Record<string, unknown>, at, issues);
    else if (field.fieldKind === "list" || field.fieldKind === "map") {
      const entries = field.fieldKind === "list" ? (value as unknown[]).entries() : Object.entries(value as object);
      for (const [key, item] of entries) {
        const itemPath = [...at, String(key)];
        if (field.enum) checkEnum(field.enum, item, itemPath, issues);
        else if (field.message) checkEnums(field.message, item as Record<string, unknown>, itemPath, issues);
      }
    }
  }
}

function checkEnum(desc: DescEnum, value: unknown, path: string[], issues: FieldIssue[]): void {
  if (desc.values.some((declared) => declared.number === value)) return;
  issues.push({ path, message: `Expected one of: ${enumChoices(desc)}` });
}

const enumBearing = new WeakMap<DescMessage | DescField, boolean>();

/** Whether a message or field holds an enum anywhere below it; computed once per descriptor. */
function hasEnums(node: DescMessage | DescField, seen = new Set<DescMessage>()): boolean {
  const known = enumBearing.get(node);
  if (known !== undefined) return known;
  let result: boolean;
  if (node.kind === "message") {
    if (seen.has(node)) return false;
    seen.add(node);
    result = node.fields.some((field) => hasEnums(field, seen));
  } else {
    result = node.enum !== undefined || (node.message !== undefined && hasEnums(node.message, seen));
  }
  enumBearing.set(node, result);
  return result;
}
