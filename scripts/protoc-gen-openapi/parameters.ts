import {
  type DescExtension,
  type DescField,
  type DescMessage,
  type DescMethod,
  getOption,
  ScalarType,
} from "@bufbuild/protobuf";
import { getComments } from "@bufbuild/protoplugin";
import { enumNames, type Schema } from "./json-schemas.ts";

// Parameters of an operation: the path's fields, the query string's (the
// other fields of a GET or DELETE), and the headers a method reads.

export function pathParameters(input: DescMessage, pathFields: readonly string[]): Schema[] {
  return pathFields.map((name) => ({
    name,
    in: "path",
    required: true,
    ...described(input.fields.find((field) => field.name === name)),
    schema: { type: "string" },
  }));
}

/** Every field of the request not in the path, as an optional query parameter. */
export function queryParameters(input: DescMessage, pathFields: readonly string[]): Schema[] {
  return input.fields
    .filter((field) => !pathFields.includes(field.name))
    .map((field) => ({
      name: field.name,
      in: "query",
      required: false,
      ...described(field),
      schema: queryValue(field),
    }));
}

/** The Idempotency-Key header, for a method with the `idempotency_key` option. */
export function requestHeaders(method: DescMethod, idempotencyKey: DescExtension): Schema[] {
  if (getOption(method, idempotencyKey) !== true) return [];
  return [
    {
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        "Makes a retry safe: the same key with the same body answers the first result again; with another body, 422. X-Idempotency-Key is the same header.",
      schema: { type: "string", minLength: 1, maxLength: 255 },
    },
  ];
}

function queryValue(field: DescField): Schema {
  if (field.fieldKind === "enum") return { type: "string", enum: enumNames(field.enum) };
  if (field.fieldKind !== "scalar") throw new Error(`${field.name}: only scalars and enums fit a query string`);
  switch (field.scalar) {
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.UINT32:
      return { type: "integer", minimum: 0, maximum: 0xffff_ffff };
    case ScalarType.INT32:
      return { type: "integer", minimum: -0x8000_0000, maximum: 0x7fff_ffff };
    default:
      throw new Error(`${field.name}: scalar type ${ScalarType[field.scalar]} has no query form`);
  }
}

function described(field: DescField | undefined): { description?: string } {
  const text = field === undefined ? undefined : getComments(field).leading?.trim();
  return text ? { description: text.replace(/\s*\n\s*/g, " ") } : {};
}
