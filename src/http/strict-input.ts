import type { DescEnum, DescField, DescMessage } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { type FieldIssue, validationError } from "../domain/domain-error.ts";
import { decodeIssuesKey } from "../guards/context-values.ts";
import { domainErrorToConnect } from "../rpc/connect-errors.ts";
import { enumChoices } from "./json-codec.ts";

// The last interceptor before every implementation, on every protocol: a
// request the REST host could not decode (wrong types, unknown fields,
// malformed JSON) or that carries an enum number outside its declared set
// (binary protobuf keeps unknown enum numbers) is refused here with 400 /
// INVALID_ARGUMENT, so no implementation ever sees it. It runs after the
// guards: a caller without a valid key learns nothing about valid bodies.

export function strictInput(): Interceptor {
  return (next) => async (req) => {
    const issues: FieldIssue[] = [...req.contextValues.get(decodeIssuesKey)];
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
