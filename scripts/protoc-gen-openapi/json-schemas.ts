import {
  type DescEnum,
  type DescExtension,
  type DescField,
  type DescMessage,
  getOption,
  ScalarType,
} from "@bufbuild/protobuf";
import { getComments } from "@bufbuild/protoplugin";

// JSON Schema (2020-12, as OpenAPI 3.1 uses) for messages in the REST JSON of
// src/http/json-codec.ts: snake_case names, enums by their short lower-case
// names, timestamps as ISO 8601 strings, unset optional fields as null. A
// response has every field but those marked omit_empty (left out while
// empty); a request may leave any out (the service says which are missing,
// with a 400).

export type Schema = Record<string, unknown>;
export type Side = "request" | "response";

const TIMESTAMP = "google.protobuf.Timestamp";

export class SchemaCollector {
  readonly schemas: Record<string, Schema> = {};

  /** The option marking a response field the JSON leaves out while empty. */
  private readonly omitEmpty: DescExtension;

  constructor(omitEmpty: DescExtension) {
    this.omitEmpty = omitEmpty;
  }

  /** A reference to the message's schema for one side, adding it (and what it uses) on first use. */
  ref(message: DescMessage, side: Side): Schema {
    const name = componentName(message, side);
    if (!(name in this.schemas)) {
      this.schemas[name] = {};
      this.schemas[name] = this.object(message, side);
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  /** The message as an inline object schema, leaving out the named fields (path parameters). */
  object(message: DescMessage, side: Side, without: readonly string[] = []): Schema {
    const fields = message.fields.filter((field) => !without.includes(field.name));
    const properties: Record<string, Schema> = {};
    for (const field of fields) properties[field.name] = withDescription(this.field(field, side), field);
    return withDescription(
      {
        type: "object",
        properties,
        ...(side === "response"
          ? { required: fields.filter((field) => getOption(field, this.omitEmpty) !== true).map((field) => field.name) }
          : {}),
        additionalProperties: false,
      },
      message,
    );
  }

  private field(field: DescField, side: Side): Schema {
    // A request may send null for any field: it means "not set".
    const nullable = side === "request";
    switch (field.fieldKind) {
      case "scalar":
        return nullableIf(nullable || isOptional(field), scalarSchema(field.scalar));
      case "enum":
        // The zero value (*_UNSPECIFIED) has no name: it is written as null.
        return nullableIf(true, enumSchema(field.enum));
      case "message":
        // A message field that is not set is written as null.
        return nullableIf(true, this.nested(field.message, side));
      case "list":
        return nullableIf(nullable, {
          type: "array",
          items:
            field.listKind === "message"
              ? this.nested(field.message, side)
              : field.listKind === "enum"
                ? enumSchema(field.enum)
                : scalarSchema(field.scalar),
        });
      case "map":
        return nullableIf(nullable, {
          type: "object",
          additionalProperties:
            field.mapKind === "message"
              ? this.nested(field.message, side)
              : field.mapKind === "enum"
                ? enumSchema(field.enum)
                : scalarSchema(field.scalar),
        });
    }
  }

  private nested(message: DescMessage, side: Side): Schema {
    if (message.typeName === TIMESTAMP) return { type: "string", format: "date-time" };
    return this.ref(message, side);
  }
}

/** The short lower-case names the codec writes: LINE_TYPE_MOBILE → "mobile"; the zero value means unset. */
export function enumNames(desc: DescEnum): string[] {
  const prefix = desc.sharedPrefix ?? "";
  return desc.values
    .filter((value) => value.number !== 0)
    .map((value) => {
      const lower = value.name.toLowerCase();
      return lower.startsWith(prefix) ? lower.slice(prefix.length) : lower;
    });
}

function componentName(message: DescMessage, side: Side): string {
  const local = message.typeName.slice(message.file.proto.package.length + 1);
  return side === "request" ? `${local}Input` : local;
}

function isOptional(field: DescField): boolean {
  return field.proto.proto3Optional || field.oneof !== undefined;
}

function scalarSchema(scalar: ScalarType): Schema {
  switch (scalar) {
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: "number" };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: "integer", minimum: 0, maximum: 0xffff_ffff };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: "integer", minimum: -0x8000_0000, maximum: 0x7fff_ffff };
    default:
      throw new Error(`the REST JSON has no form for scalar type ${ScalarType[scalar]}`);
  }
}

function enumSchema(desc: DescEnum): Schema {
  return { type: "string", enum: enumNames(desc) };
}

function nullableIf(nullable: boolean, schema: Schema): Schema {
  if (!nullable) return schema;
  if (typeof schema.type === "string") {
    const enumValues = schema.enum as string[] | undefined;
    return { ...schema, type: [schema.type, "null"], ...(enumValues ? { enum: [...enumValues, null] } : {}) };
  }
  return { anyOf: [schema, { type: "null" }] };
}

function withDescription(schema: Schema, desc: DescField | DescMessage): Schema {
  const text = getComments(desc).leading?.trim();
  return text ? { ...schema, description: text.replace(/\s*\n\s*/g, " ") } : schema;
}
