// The resource of the exported spans, as OpenTelemetry's SDKs build it from
// the environment: OTEL_RESOURCE_ATTRIBUTES ("key=value,key=value", values
// percent-encoded), with OTEL_SERVICE_NAME, when set, taking precedence for
// service.name, which is "caller-context" when neither names one.

const DEFAULT_SERVICE_NAME = "caller-context";

export function resourceAttributesOf(listed: string, serviceName: string | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const pair of listed.split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue; // the SDKs skip a malformed entry rather than fail
    const key = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    try {
      attributes[key] = decodeURIComponent(value);
    } catch {
      attributes[key] = value;
    }
  }
  attributes["service.name"] = serviceName ?? attributes["service.name"] ?? DEFAULT_SERVICE_NAME;
  return attributes;
}
