import type { Database } from "../../src/store/database.ts";
import type { BlockCounter } from "../phases/phase.ts";
import type { Service } from "./service.ts";

// Where a phase reads the database blocks touched: from the service's own
// metric (db_blocks_touched_total, which copies PostgreSQL's count for its
// database at each scrape, on either engine) while it runs, or from the
// benchmark's own connection in the phases without a server.

export function serviceBlocks(service: Service): BlockCounter {
  return async () => {
    const text = await (await fetch(`${service.metricsUrl}/metrics`)).text();
    const match = /^db_blocks_touched_total (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
    if (match === null) throw new Error("the service's /metrics has no db_blocks_touched_total");
    return Number(match[1]);
  };
}

export function databaseBlocks(database: Database): BlockCounter {
  return () => database.blocksTouched();
}
