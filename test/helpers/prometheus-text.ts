import parsePrometheusText from "parse-prometheus-text-format";

// Reads a /metrics answer. The parser package checks the text is well-formed
// Prometheus exposition (it throws on a bad line) and gives each family's
// type; it folds labelled histograms together, so sample values are read
// here, line by line, by name and labels.

export interface MetricsText {
  /** Family name → TYPE (COUNTER, GAUGE, HISTOGRAM...). */
  readonly types: ReadonlyMap<string, string>;
  readonly samples: readonly Sample[];
  /** The sum of the samples with this name whose labels include `labels`. */
  value(name: string, labels?: Record<string, string>): number;
}

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function readMetricsText(text: string): MetricsText {
  const families = parsePrometheusText(text) as { name: string; type: string }[];
  const types = new Map(families.map((family) => [family.name, family.type]));
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = SAMPLE.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const labels = Object.fromEntries([...(match[2] ?? "").matchAll(LABEL)].map(([, key, value]) => [key, value]));
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return {
    types,
    samples,
    value: (name, labels = {}) =>
      samples
        .filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
        .reduce((sum, s) => sum + s.value, 0),
  };
}
