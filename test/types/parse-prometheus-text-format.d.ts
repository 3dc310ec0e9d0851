declare module "parse-prometheus-text-format" {
  /** Parses Prometheus' text exposition format; throws on a line it cannot read. */
  export default function parsePrometheusText(text: string): unknown[];
}
