import { createWorkload, type Workload } from "../load/workload.ts";
import { createApiKeys } from "../service/api-keys.ts";
import { createBenchDatabase } from "../service/bench-database.ts";
import { seedPopulation } from "../service/seed.ts";
import { randomToken } from "../service/server-process.ts";
import { createService, type Service } from "../service/service.ts";

// What the steady experiments start from: a fresh database at DATABASE_URL
// seeded with `customers` callers, a server on it, `keyCount` API keys and the
// workload over those callers. `close` stops the server and drops the database.

export interface SeededService {
  readonly service: Service;
  readonly keys: readonly string[];
  readonly workload: Workload;
  /** Names the run's database (cc_bench_<stamp>). */
  readonly stamp: string;
  /** What the server was given to reach that database (DATABASE_URL). */
  readonly databaseEnv: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

export async function startSeededService(customers: number, keyCount: number): Promise<SeededService> {
  const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  const database = await createBenchDatabase(process.env.DATABASE_URL, stamp);
  const adminToken = randomToken();
  const service = createService({ databaseEnv: database.env, adminToken, postgres: true });
  const close = async () => {
    await service.stop();
    await database.dispose();
  };
  try {
    await seedPopulation(database, 0, customers);
    await service.start();
    const keys = await createApiKeys(service.url, adminToken, keyCount);
    const workload = createWorkload({ population: customers, runTag: stamp });
    return { service, keys, workload, stamp, databaseEnv: database.env, close };
  } catch (error) {
    await close();
    throw error;
  }
}
