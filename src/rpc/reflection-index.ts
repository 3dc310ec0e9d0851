import { createRegistry, type DescExtension, type DescFile, type Registry } from "@bufbuild/protobuf";

// Where each file, symbol and extension of the served descriptors is found.

export interface ReflectionIndex {
  readonly registry: Registry;
  fileByName(name: string): DescFile | undefined;
  /** The file declaring a message, enum, service, extension, or a service's method or a message's field. */
  fileOfSymbol(symbol: string): DescFile | undefined;
  extensionsOf(typeName: string): DescExtension[];
}

export function createReflectionIndex(roots: readonly DescFile[]): ReflectionIndex {
  const byName = new Map<string, DescFile>();
  const collect = (file: DescFile) => {
    if (byName.has(file.proto.name)) return;
    byName.set(file.proto.name, file);
    for (const dependency of file.dependencies) collect(dependency);
  };
  for (const root of roots) collect(root);
  const allFiles = [...byName.values()];
  const registry = createRegistry(...allFiles);
  const extensions = allFiles.flatMap((file) => [
    ...file.extensions,
    ...file.messages.flatMap(function nested(message): DescExtension[] {
      return [...message.nestedExtensions, ...message.nestedMessages.flatMap(nested)];
    }),
  ]);
  const fileOf = (typeName: string) => registry.get(typeName)?.file;
  return {
    registry,
    fileByName: (name) => byName.get(name),
    fileOfSymbol(symbol) {
      const direct = fileOf(symbol);
      if (direct !== undefined) return direct;
      // A method or a field: the file of the service or message that holds it.
      const parent = symbol.slice(0, Math.max(0, symbol.lastIndexOf(".")));
      const owner = registry.get(parent);
      return owner?.kind === "service" || owner?.kind === "message" ? owner.file : undefined;
    },
    extensionsOf: (typeName) => extensions.filter((ext) => ext.extendee.typeName === typeName),
  };
}
