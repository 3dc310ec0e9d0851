// The layer rule (npm run check:layers; docs/architecture.md, "Layers"). Each layer may import the layers
// listed before it and never one after it. The edge's folders may not import each other either: what they
// share is in src/pipeline/. dpdm (npm run check:imports) still checks for cycles of files; this checks the
// direction, which a cycle check cannot see.
//
// Layers are lists of path patterns, so a folder is re-placed by moving its pattern.

const layers = [
  // The database engine (connections, PGlite, prepared statements, migrations) knows nothing of the service.
  { name: "database", paths: ["^src/database/"] },
  { name: "domain", paths: ["^src/domain/"] },
  { name: "config", paths: ["^src/config\\.ts$"] },
  { name: "store", paths: ["^src/store/", "^src/mail/"], acrossAllowed: true },
  { name: "secrets", paths: ["^src/secrets/"] },
  {
    name: "use cases",
    paths: [
      "^src/accounts/",
      "^src/analytics/",
      "^src/backups/",
      "^src/calls/",
      "^src/customers/",
      "^src/dashboard-auth/",
      "^src/events/",
      "^src/integrations/",
      "^src/usage/",
    ],
    // A use case may call another (a platform's webhook starts a call, an endpoint checks its account).
    acrossAllowed: true,
  },
  // Work on a timer (sweeps, the contact figures' count, erasure compaction): the store's functions, off any request.
  { name: "jobs", paths: ["^src/jobs/"], acrossAllowed: true },
  { name: "pipeline", paths: ["^src/pipeline/"] },
  { name: "app context", paths: ["^src/context\\.ts$", "^src/use-case-deps\\.ts$"], acrossAllowed: true },
  {
    name: "edge",
    paths: ["^src/guards/", "^src/rpc/", "^src/dashboard/", "^src/metrics/", "^src/tracing/", "^src/request-log/"],
  },
  { name: "http", paths: ["^src/http/"] },
  { name: "server", paths: ["^src/(?!(config|context|use-case-deps)\\.ts$)[^/]+\\.ts$"], acrossAllowed: true },
  { name: "cli", paths: ["^src/cli/"] },
];

// The imports that run back up a layer, each with its reason (docs/architecture.md names them too). None now.
const exceptions = [];

// What bench/ may use of src/: the domain, the config and the server, and the store and use cases its
// experiments drive directly.
const benchSurface = [
  "^src/domain/",
  "^src/config\\.ts$",
  "^src/server\\.ts$",
  "^src/store/database\\.ts$",
  "^src/database/migrate\\.ts$",
  "^src/store/billing/charge\\.ts$",
  "^src/jobs/contact-figures-job\\.ts$",
  "^src/calls/(start-call|end-call|call-write|billed|end-event-listeners)\\.ts$",
  "^src/analytics/get-contact-figures\\.ts$",
];

const any = (patterns) => patterns.join("|");
const exactly = (file) => `^${file.replace(/[.]/g, "\\.")}$`;
const exceptionFroms = exceptions.map((e) => exactly(e.from));

const upward = layers.flatMap((layer, index) => {
  const above = layers.slice(index + 1).flatMap((l) => l.paths);
  if (above.length === 0) return [];
  const own = exceptions.filter((e) => layer.paths.some((p) => new RegExp(p).test(e.from)));
  return [
    {
      name: `no-import-up-from-${layer.name.replace(/ /g, "-")}`,
      comment: `${layer.name} may not import a layer above it`,
      severity: "error",
      // An empty pathNot would match every path and so switch the rule off: only set when there are exceptions.
      from: exceptionFroms.length > 0 ? { path: any(layer.paths), pathNot: any(exceptionFroms) } : { path: any(layer.paths) },
      to: { path: any(above) },
    },
    ...own.map((e) => ({
      name: `no-import-up-from-${layer.name.replace(/ /g, "-")}-besides-its-named-exception`,
      severity: "error",
      from: { path: exactly(e.from) },
      to: { path: any(above), pathNot: exactly(e.to) },
    })),
  ];
});

const across = layers
  .filter((layer) => !layer.acrossAllowed && layer.paths.length > 1)
  .flatMap((layer) =>
    layer.paths.map((folder) => ({
      name: `no-import-across-${layer.name.replace(/ /g, "-")}`,
      comment: `the ${layer.name}'s folders share src/pipeline/, not each other's files`,
      severity: "error",
      from: { path: folder },
      to: { path: any(layer.paths.filter((p) => p !== folder)) },
    })),
  );

module.exports = {
  forbidden: [
    ...upward,
    ...across,
    {
      name: "bench-through-its-surface",
      comment: "bench/ uses src/ only through the surface declared in .dependency-cruiser.cjs",
      severity: "error",
      from: { path: "^bench/" },
      to: { path: "^src/", pathNot: any(benchSurface) },
    },
    {
      name: "src-imports-no-tests-or-tools",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(bench|test|scripts|tools)/" },
    },
    {
      name: "generated-code-stops-at-the-edge",
      comment: "domain, store and use cases speak in domain values, never in generated messages",
      severity: "error",
      from: { path: any(layers.slice(0, layers.findIndex((l) => l.name === "pipeline")).flatMap((l) => l.paths)) },
      to: { path: "^gen/" },
    },
  ],
  options: {
    // TypeScript 7 has no compiler API for dependency-cruiser to parse with; swc's syntax tree keeps
    // type-only imports, so every import counts, as it does for dpdm.
    parser: "swc",
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/dashboard/assets/" },
  },
};
