import { afterAll, beforeAll } from "vitest";

// The suites' files share their worker's process, and an embedded database
// opened on disk sets the process umask to keep its files owner-only
// (src/database/data-dir-mode.ts), for the rest of that process. A file
// that checks the modes of what the service writes starts from the umask a new
// process has, so the service must restrict its files itself for the check to
// pass, as it must in production; and leaves the umask as it found it.

const NEW_PROCESS_UMASK = 0o022;

export function useNewProcessUmask(): void {
  let previous: number | undefined;
  beforeAll(() => {
    previous = process.umask(NEW_PROCESS_UMASK);
  });
  afterAll(() => {
    if (previous !== undefined) process.umask(previous);
  });
}
