import type { DescMethod } from "@bufbuild/protobuf";
import { createContextValues, type Interceptor, type UnaryRequest, type UnaryResponse } from "@connectrpc/connect";
import { describe, expect, test } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { IntegrationService } from "../../gen/callercontext/v1/integrations_pb.ts";
import { onlyFor } from "../../src/pipeline/method-policy.ts";

// The webhook triage is applied to the webhook methods only: an API call goes straight on without the
// interceptor ever being applied to it, so none of its code runs on a start.

const requestOf = (method: DescMethod) => ({ method, contextValues: createContextValues() }) as unknown as UnaryRequest;
const answer = {} as UnaryResponse;

function recordingInterceptor(applied: DescMethod[]): Interceptor {
  return (next) => async (req) => {
    applied.push(req.method);
    return next(req);
  };
}

describe("an interceptor for one access only", () => {
  test("a start never enters an interceptor meant for webhooks", async () => {
    const applied: DescMethod[] = [];
    const interceptor = onlyFor("integration", (next) => {
      applied.push(CallerContextService.method.startCall);
      return recordingInterceptor(applied)(next);
    });
    const result = await interceptor(async () => answer)(requestOf(CallerContextService.method.startCall));
    expect(result).toBe(answer);
    expect(applied).toEqual([]);
  });

  test("a webhook passes through it", async () => {
    const applied: DescMethod[] = [];
    const interceptor = onlyFor("integration", recordingInterceptor(applied));
    const result = await interceptor(async () => answer)(requestOf(IntegrationService.method.receiveWebhook));
    expect(result).toBe(answer);
    expect(applied).toEqual([IntegrationService.method.receiveWebhook]);
  });
});
