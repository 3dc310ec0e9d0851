import { post, request } from "./rest-client.ts";
import { ADMIN_TOKEN } from "./test-server.ts";

// The admin API's event endpoint calls, as an operator makes them.

export async function createEventEndpoint(
  baseUrl: string,
  accountId: string,
  body: { url: string; event_types: string[]; kind?: "test" | "prod"; include_variable_values?: boolean },
): Promise<{ endpointId: string; secret: string }> {
  const res = await post(baseUrl, `/admin/v1/accounts/${accountId}/event-endpoints`, ADMIN_TOKEN, body);
  if (res.status !== 200) throw new Error(`create event endpoint: ${JSON.stringify(res.body)}`);
  return { endpointId: res.body.endpoint.endpoint_id, secret: res.body.signing_secret };
}

export async function listEventDeliveries(baseUrl: string, endpointId: string): Promise<any[]> {
  const res = await request(baseUrl, "GET", `/admin/v1/event-endpoints/${endpointId}/deliveries`, {
    token: ADMIN_TOKEN,
  });
  if (res.status !== 200) throw new Error(`list deliveries: ${JSON.stringify(res.body)}`);
  return res.body.deliveries ?? [];
}
