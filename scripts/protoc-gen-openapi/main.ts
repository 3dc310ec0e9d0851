#!/usr/bin/env node
import { runNodeJs } from "@bufbuild/protoplugin";
import { createOpenApiPlugin } from "./openapi-plugin.ts";

// protoc-gen-openapi: run by `buf generate` as a local plugin (see buf.gen.yaml).
runNodeJs(createOpenApiPlugin());
