import type { RequestLogEntry } from "../store/request-log-repository.ts";

// Where finished API requests go for the dashboard's Requests page; the buffered writer is
// src/request-log/request-log.ts.

export interface RequestLog {
  record(entry: RequestLogEntry): void;
  /** Writes what is recorded so far (the Requests page calls it before reading). */
  flush(): Promise<void>;
  close(): Promise<void>;
}
