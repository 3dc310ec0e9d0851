import { create, createFileRegistry } from "@bufbuild/protobuf";
import { CodeGeneratorResponseSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import type { Plugin } from "@bufbuild/protoplugin";
import { buildDocument } from "./build-document.ts";

// A protoc plugin writing one OpenAPI 3.1 document for every RPC that
// declares a REST route, in the JSON the REST adapter really speaks.

export function createOpenApiPlugin(): Plugin {
  return {
    name: "protoc-gen-openapi",
    version: "v1",
    run(request) {
      const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: request.protoFile }));
      const files = request.fileToGenerate.map((name) => {
        const file = registry.getFile(name);
        if (file === undefined) throw new Error(`${name} is not in the request`);
        return file;
      });
      const document = buildDocument(registry, files);
      return create(CodeGeneratorResponseSchema, {
        // Proto3 optional fields are understood.
        supportedFeatures: 1n,
        file: [{ name: "openapi.json", content: `${JSON.stringify(document, null, 2)}\n` }],
      });
    },
  };
}
