import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { sql } from "kysely";
import { runClosedLoop } from "../load/closed-loop.ts";
import { createRestDriver } from "../load/rest-load.ts";
import { createWorkload } from "../load/workload.ts";
import { createBenchDatabase } from "../service/bench-database.ts";
import { randomToken, startServiceProcess } from "../service/server-process.ts";

// A/B in one run: does an event endpoint that never answers change a call's
// start and end latency? One service process, one account with a test key
// and two endpoints for the same events: one whose receiver answers 204 at
// once (A) and one whose receiver accepts connections and never answers (B),
// one enabled at a time, alternating, with a closed loop of start + end calls
// in each. Both sides write the same events and deliver them; only the
// receiver differs. Delivery runs off the request path, so A and B should
// match. `node bench/experiments/events-ab.ts [--seconds 3] [--rounds 2] [--concurrency 4]`,
// on a database of the run's own, removed at the end (bench/service/bench-database.ts): a new
// database on the PostgreSQL server DATABASE_URL names, or without it an embedded one in a
// directory under bench/.

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "3" },
    rounds: { type: "string", default: "2" },
    concurrency: { type: "string", default: "4" },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);

const held: http.ServerResponse[] = [];
let answered = 0;
const receiver = http
  .createServer((req, res) => {
    if (req.url === "/hang") held.push(res);
    else {
      answered++;
      req.resume();
      res.writeHead(204).end();
    }
  })
  .listen(0, "127.0.0.1");
await new Promise((resolve) => receiver.once("listening", resolve));
const receiverOrigin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const database = await createBenchDatabase(process.env.DATABASE_URL, `events_ab_${Date.now()}`);
const adminToken = randomToken();
const service = await startServiceProcess({ databaseEnv: database.env, adminToken });
const admin = async (path: string, body: unknown) => {
  const res = await fetch(new URL(path, service.url), {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
};

try {
  const account = await admin("/admin/v1/accounts", { name: "events A/B", tier: "scale", quota: 1_000_000 });
  const accountId = account.account.account_id;
  // The rate limit counts per key: enough keys that a minute of this loop stays under it (10,000 each on scale).
  const keys = await Promise.all(
    Array.from(
      { length: 16 },
      async () => (await admin(`/admin/v1/accounts/${accountId}/keys`, { kind: "test" })).api_key,
    ),
  );
  const endpointTo = async (path: string) =>
    (
      await admin(`/admin/v1/accounts/${accountId}/event-endpoints`, {
        url: `${receiverOrigin}${path}`,
        event_types: ["call.ended", "intent.opened", "intent.resolved"],
      })
    ).endpoint.endpoint_id as string;
  const endpoints = { A: await endpointTo("/answer"), B: await endpointTo("/hang") };
  const driver = createRestDriver(service.url, keys, concurrency);
  const workload = createWorkload({ population: 2000, runTag: `evab${Date.now()}` });
  const rows: string[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const side of ["A", "B"] as const) {
      await admin(`/admin/v1/event-endpoints/${endpoints.A}/enabled`, { enabled: side === "A" });
      await admin(`/admin/v1/event-endpoints/${endpoints.B}/enabled`, { enabled: side === "B" });
      const result = await runClosedLoop(driver, workload, { concurrency, durationSeconds: seconds, warmupSeconds: 1 });
      const s = result.start.latency;
      const e = result.end.latency;
      rows.push(
        [
          `${round + 1}`,
          side === "A" ? "A answering endpoint" : "B hanging endpoint",
          result.callsPerSecond.toFixed(0),
          `${s.p50Ms.toFixed(1)} / ${s.p99Ms.toFixed(1)}`,
          `${e.p50Ms.toFixed(1)} / ${e.p99Ms.toFixed(1)}`,
          `${result.start.errors + result.end.errors}`,
          `${answered} / ${held.length}`,
        ].join(" | "),
      );
      if (result.start.errors + result.end.errors > 0) {
        rows.push(
          `  errors: start ${JSON.stringify(result.start.errorsByKind)}, end ${JSON.stringify(result.end.errorsByKind)}`,
        );
      }
    }
  }
  await driver.close();
  // Where the events stand at the end: each endpoint's deliveries by state. The embedded database has one holder.
  if (database.kind === "pglite") await service.stop();
  const db = await database.open();
  try {
    const { rows: states } = await sql<{ endpoint: string; state: string; n: number; attempts: number }>`
      select case endpoint_id when ${endpoints.A} then 'A' else 'B' end as endpoint, state, count(*)::int as n,
        sum(attempts)::int as attempts
      from event_deliveries group by 1, 2 order by 1, 2
    `.execute(db.db);
    rows.push(
      `outbox at the end: ${states.map((r) => `${r.endpoint} ${r.state} ${r.n} (${r.attempts} attempts)`).join(", ")}`,
    );
  } finally {
    await db.close();
  }
  console.log(`database: ${database.kind}`);
  console.log(
    "round | side | calls/s | start p50 / p99 ms | end p50 / p99 ms | errors | deliveries answered / held so far",
  );
  for (const row of rows) console.log(row);
} finally {
  for (const res of held) res.destroy();
  receiver.closeAllConnections();
  receiver.close();
  await service.stop();
  await database.dispose();
}
