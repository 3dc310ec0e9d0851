import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// Every REST response a suite receives is checked against the committed
// OpenAPI document (gen/openapi.json): its status must be documented for the
// operation (or fall under `default`), its body must fit that schema, and a
// success carries every header the document declares for it.

const DOCUMENT_URL = new URL("../../gen/openapi.json", import.meta.url);
export const openApiDocument = JSON.parse(readFileSync(DOCUMENT_URL, "utf8"));

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openApiDocument, "openapi.json");
const compiled = new Map<string, ValidateFunction>();

interface Route {
  readonly template: string;
  readonly pattern: RegExp;
}
const routes: Route[] = Object.keys(openApiDocument.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`),
}));

/** Throws when a response of a documented operation does not match the document. */
export function assertDocumentedResponse(
  method: string,
  url: URL,
  status: number,
  body: unknown,
  headers?: Headers,
): void {
  const route = routes.find((candidate) => candidate.pattern.test(url.pathname));
  const operation = route && openApiDocument.paths[route.template][method.toLowerCase()];
  if (route === undefined || operation === undefined) return; // not an operation of the REST contract
  const key = String(status) in operation.responses ? String(status) : "default";
  if (!(key in operation.responses)) {
    throw new Error(`${method} ${route.template} answered ${status}, which the OpenAPI document does not list`);
  }
  const pointer = [
    "paths",
    route.template,
    method.toLowerCase(),
    "responses",
    key,
    "content",
    "application/json",
    "schema",
  ]
    .map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1"))
    .join("/");
  if (headers !== undefined && status < 300) {
    const missing = Object.keys(operation.responses[key].headers ?? {}).filter((name) => !headers.has(name));
    if (missing.length > 0) {
      throw new Error(`${method} ${url.pathname} → ${status} lacks the documented headers ${missing.join(", ")}`);
    }
  }
  let validate = compiled.get(pointer);
  if (validate === undefined) {
    validate = ajv.compile({ $ref: `openapi.json#/${pointer}` });
    compiled.set(pointer, validate);
  }
  if (!validate(body)) {
    throw new Error(
      `${method} ${url.pathname} → ${status} does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
    );
  }
}
