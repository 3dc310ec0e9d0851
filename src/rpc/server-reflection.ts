import {
  create,
  type DescFile,
  type DescService,
  fromBinary,
  type MessageInitShape,
  toBinary,
} from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, type ServiceImpl } from "@connectrpc/connect";
import {
  ServerReflection,
  type ServerReflectionRequest,
  ServerReflectionRequestSchema,
  ServerReflectionResponseSchema,
} from "../../gen/grpc/reflection/v1/reflection_pb.ts";
import {
  ServerReflectionRequestSchema as AlphaRequestSchema,
  ServerReflectionResponseSchema as AlphaResponseSchema,
  ServerReflection as ServerReflectionAlpha,
} from "../../gen/grpc/reflection/v1alpha/reflection_pb.ts";
import { createReflectionIndex, type ReflectionIndex } from "./reflection-index.ts";

// gRPC server reflection (v1, and v1alpha that older clients still ask for),
// answered from the descriptors embedded in the generated code, so grpcurl,
// `buf curl`, Postman and Kreya can explore the API without the proto files.

type Response = MessageInitShape<typeof ServerReflectionResponseSchema>;

export interface ServerReflectionServices {
  readonly v1: ServiceImpl<typeof ServerReflection>;
  readonly v1alpha: ServiceImpl<typeof ServerReflectionAlpha>;
}

export function createServerReflection(
  services: readonly DescService[],
  files: readonly DescFile[],
): ServerReflectionServices {
  const served = [...services, ServerReflection, ServerReflectionAlpha];
  const index = createReflectionIndex([...served.map((service) => service.file), ...files]);
  const names = served.map((service) => service.typeName);
  return {
    v1: {
      async *serverReflectionInfo(requests) {
        const sent = new Set<string>();
        for await (const request of requests) yield answer(index, names, request, sent);
      },
    },
    // The same protocol under another package: the messages are identical on the wire.
    v1alpha: {
      async *serverReflectionInfo(requests) {
        const sent = new Set<string>();
        for await (const request of requests) {
          const asV1 = fromBinary(ServerReflectionRequestSchema, toBinary(AlphaRequestSchema, request));
          const response = create(ServerReflectionResponseSchema, answer(index, names, asV1, sent));
          yield fromBinary(AlphaResponseSchema, toBinary(ServerReflectionResponseSchema, response));
        }
      },
    },
  };
}

function answer(
  index: ReflectionIndex,
  serviceNames: readonly string[],
  request: ServerReflectionRequest,
  sent: Set<string>,
): Response {
  const base = { validHost: request.host, originalRequest: request };
  const query = request.messageRequest;
  switch (query.case) {
    case "listServices":
      return {
        ...base,
        messageResponse: {
          case: "listServicesResponse",
          value: { service: serviceNames.map((name) => ({ name })) },
        },
      };
    case "fileByFilename":
      return files(base, index.fileByName(query.value), `file ${query.value}`, sent);
    case "fileContainingSymbol":
      return files(base, index.fileOfSymbol(query.value), `symbol ${query.value}`, sent);
    case "fileContainingExtension": {
      const { containingType, extensionNumber } = query.value;
      const file = index.extensionsOf(containingType).find((ext) => ext.number === extensionNumber)?.file;
      return files(base, file, `extension ${extensionNumber} of ${containingType}`, sent);
    }
    case "allExtensionNumbersOfType": {
      if (index.registry.getMessage(query.value) === undefined) return notFound(base, `type ${query.value}`);
      const numbers = index.extensionsOf(query.value).map((ext) => ext.number);
      return {
        ...base,
        messageResponse: {
          case: "allExtensionNumbersResponse",
          value: { baseTypeName: query.value, extensionNumber: numbers },
        },
      };
    }
    default:
      return {
        ...base,
        messageResponse: {
          case: "errorResponse",
          value: { errorCode: Code.InvalidArgument, errorMessage: "no request given" },
        },
      };
  }
}

/** The file and, as grpc-go does, those of its imports not yet sent on this stream. */
function files(
  base: Pick<Response, "validHost" | "originalRequest">,
  file: DescFile | undefined,
  what: string,
  sent: Set<string>,
): Response {
  if (file === undefined) return notFound(base, what);
  const out: Uint8Array[] = [];
  const visit = (current: DescFile, requested: boolean) => {
    if (!requested && sent.has(current.proto.name)) return;
    sent.add(current.proto.name);
    out.push(toBinary(FileDescriptorProtoSchema, current.proto));
    for (const dependency of current.dependencies) visit(dependency, false);
  };
  visit(file, true);
  return {
    ...base,
    messageResponse: { case: "fileDescriptorResponse", value: { fileDescriptorProto: out } },
  };
}

function notFound(base: Pick<Response, "validHost" | "originalRequest">, what: string): Response {
  return {
    ...base,
    messageResponse: { case: "errorResponse", value: { errorCode: Code.NotFound, errorMessage: `${what} not found` } },
  };
}
