import { create } from "@bufbuild/protobuf";
import {
  type ReceiveWebhookResponse,
  ReceiveWebhookResponseSchema,
} from "../../gen/callercontext/v1/integrations_pb.ts";

/** A platform webhook's answer: its JSON, sent as the body as it is (the route's response_body). */
export function webhookReply(json: string): ReceiveWebhookResponse {
  return create(ReceiveWebhookResponseSchema, { replyJson: json });
}
