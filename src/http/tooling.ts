import type { DescService } from "@bufbuild/protobuf";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { registerApiDocs } from "./api-docs.ts";
import { registerToolingServices } from "./tooling-services.ts";

/** What platform tools use, none of it behind the API guards: gRPC health and reflection, the OpenAPI document. */
export async function registerTooling(
  fastify: FastifyInstance,
  app: AppContext,
  apiServices: readonly DescService[],
): Promise<void> {
  registerApiDocs(fastify);
  await registerToolingServices(fastify, app, apiServices);
}
