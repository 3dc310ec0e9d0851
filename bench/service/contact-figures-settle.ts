import { progress } from "../phases/phase.ts";

// The service counts ended calls into its contact figures off the call's path (docs/analytics.md): a job, every
// 15 s, counts the calls ended at least 10 s before. Its work is part of what a call costs, but it lands up to half
// a minute after the call. A phase that counts blocks per call waits for it on both sides of its loop: before,
// until every call made before the loop is counted (else the backlog of a growth step is charged to the loop's
// calls); after, until the loop's own calls are (so their counting is charged to them).

const POLL_MS = 1000;
const GIVE_UP_MS = 120_000;

/** Waits until the service reports every call ended before `through` counted (GET /v1/analytics/contact-figures). */
export async function awaitFiguresCounted(baseUrl: string, apiKey: string, through: Date): Promise<void> {
  const day = through.toISOString().slice(0, 10);
  const url = new URL(`/v1/analytics/contact-figures?from=${day}&to=${day}`, baseUrl);
  const began = performance.now();
  while (performance.now() - began < GIVE_UP_MS) {
    const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
    const body = (await response.json()) as { counted_through?: string };
    if (response.status !== 200) throw new Error(`contact figures answered ${response.status} ${JSON.stringify(body)}`);
    if (body.counted_through !== undefined && Date.parse(body.counted_through) >= through.getTime()) {
      progress(
        `  contact figures counted through the loop's edge after ${((performance.now() - began) / 1000).toFixed(1)} s`,
      );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(
    `the contact figures were not counted through ${through.toISOString()} within ${GIVE_UP_MS / 1000} s`,
  );
}
