import { Worker } from "node:worker_threads";
import { freshMemoryCluster } from "./fresh-memory-cluster.ts";
import {
  type ErrorFields,
  fieldsToError,
  type PgliteAnswer,
  type PgliteOpening,
  type PgliteRequest,
} from "./pglite-messages.ts";
import { pgliteModules } from "./pglite-modules.ts";

// The service's side of the embedded database's thread (pglite-worker.ts):
// the part of PGlite's API the dialect uses, each call a message answered by
// id. A thread that dies fails what it was asked and everything after it,
// as a lost PostgreSQL does; it is not restarted.

const WORKER_URL = new URL("./pglite-worker.ts", import.meta.url);

export interface PgliteResult<R> {
  readonly rows: R[];
  readonly affectedRows?: number;
}

/** What the dialect needs of PGlite; PGlite itself and PgliteThread both offer it. */
export interface PgliteQueryable {
  query<R>(sql: string, params?: unknown[]): Promise<PgliteResult<R>>;
}

export class PgliteThreadStoppedError extends Error {
  constructor(reason: string, cause?: unknown) {
    super(`embedded database thread stopped: ${reason}`, { cause });
    this.name = "PgliteThreadStoppedError";
  }
}

interface Pending {
  resolve(answer: PgliteAnswer): void;
  reject(error: Error): void;
}

export class PgliteThread implements PgliteQueryable {
  /** The thread itself; tests end it to see what a crash does. */
  readonly worker: Worker;
  readonly #pending = new Map<number, Pending>();
  readonly #exited: Promise<void>;
  #nextId = 1;
  #closed: Promise<void> | undefined;
  #stopped: Error | undefined;
  #crash: unknown;

  private constructor(worker: Worker) {
    this.worker = worker;
    worker.on("message", (answer: PgliteAnswer) => {
      const pending = this.#pending.get(answer.id);
      this.#pending.delete(answer.id);
      if (this.#pending.size === 0) worker.unref();
      pending?.resolve(answer);
    });
    // An uncaught error in the thread; "exit" follows.
    worker.on("error", (error) => {
      this.#crash = error;
    });
    this.#exited = new Promise((resolve) => {
      worker.once("exit", (code) => {
        const reason = this.#crash instanceof Error ? this.#crash.message : `exit code ${code}`;
        this.#stop(this.#closed ? new Error("PGlite is closed") : new PgliteThreadStoppedError(reason, this.#crash));
        resolve();
      });
    });
    // Idle, the thread does not keep the process alive (nor does PGlite on the main thread).
    worker.unref();
  }

  /**
   * Starts the thread and opens PGlite on `dataDir` (":memory:" in memory) in
   * it; with `prepareStatements` (the default) through PreparingPglite, and
   * with `genericPlans` (the default) one plan kept per prepared statement.
   */
  static async open(dataDir: string, { prepareStatements = true, genericPlans = true } = {}): Promise<PgliteThread> {
    const modules = await pgliteModules();
    // A Blob crosses to the thread without copying its bytes.
    const loadDataDir = dataDir === ":memory:" ? await freshMemoryCluster() : undefined;
    const worker = new Worker(WORKER_URL, {
      workerData: { dataDir, loadDataDir, prepareStatements, genericPlans, modules },
    });
    try {
      await opening(worker);
    } catch (error) {
      await worker.terminate();
      throw error;
    }
    return new PgliteThread(worker);
  }

  async query<R>(sql: string, params: unknown[] = []): Promise<PgliteResult<R>> {
    const answer = await this.#send({ id: this.#nextId++, kind: "query", sql, params });
    if (!answer.ok) throw fieldsToError(answer.error);
    return { rows: answer.rows as R[], affectedRows: answer.affectedRows };
  }

  /** A consistent copy of the data directory (snapshot.ts), after what was already sent. */
  async snapshot(): Promise<Blob> {
    const answer = await this.#send({ id: this.#nextId++, kind: "snapshot" });
    if (!answer.ok) throw fieldsToError(answer.error);
    if (answer.snapshot === undefined)
      throw new Error("the embedded database's thread answered a snapshot without one");
    return answer.snapshot;
  }

  /** Closes PGlite after what was already sent, then ends the thread. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      if (this.#stopped === undefined) {
        const answer = await this.#send({ id: this.#nextId++, kind: "close" });
        if (!answer.ok) throw fieldsToError(answer.error);
        // PGlite has closed its files; nothing is left in the thread to wait for.
        await this.worker.terminate();
      }
      await this.#exited;
    })();
    return this.#closed;
  }

  #send(request: PgliteRequest): Promise<PgliteAnswer> {
    if (this.#stopped !== undefined) return Promise.reject(this.#stopped);
    if (this.#closed !== undefined && request.kind !== "close") return Promise.reject(new Error("PGlite is closed"));
    return new Promise((resolve, reject) => {
      this.#pending.set(request.id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage(request);
    });
  }

  #stop(error: Error): void {
    this.#stopped ??= error;
    for (const pending of this.#pending.values()) pending.reject(this.#stopped);
    this.#pending.clear();
  }
}

/** Resolves when PGlite opened in the thread; rejects with why it did not. */
function opening(worker: Worker): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: PgliteOpening) => {
      settle();
      if (message.kind === "ready") resolve();
      else reject(fieldsToError(message.error as ErrorFields));
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    const onExit = (code: number) => {
      settle();
      // Not a PgliteThreadStoppedError: a thread that cannot open the database is not waited for.
      reject(new Error(`embedded database thread ended (exit code ${code}) before the database opened`));
    };
    const settle = () => {
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
    };
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.on("exit", onExit);
  });
}
