import { createRequire } from "node:module";
import type { ZxcvbnFactory } from "@zxcvbn-ts/core";

// Length alone let 1234567890, password12 and qwertyuiop through. zxcvbn-ts
// estimates how many guesses a cracker needs, knowing common passwords, words,
// names, keyboard walks, sequences, repeats and dates; a score of 3 ("safely
// unguessable: moderate protection from offline slow-hash attacks", ~10^8
// guesses) is the least we accept, which scrypt makes slow on top.

const MIN_SCORE = 3;

let estimator: ZxcvbnFactory | undefined;
// Loaded and built on first use: the dictionaries take tens of MB of memory (bench:cost: server peak RSS
// 183–184 MB with them loaded at start, against 156–159 MB before they were added) that an instance which
// never checks a password (one serving only the API) need not hold.
const load = createRequire(import.meta.url);
const zxcvbn = () => {
  if (estimator === undefined) {
    const { ZxcvbnFactory } = load("@zxcvbn-ts/core") as typeof import("@zxcvbn-ts/core");
    const common = load("@zxcvbn-ts/language-common") as typeof import("@zxcvbn-ts/language-common");
    const english = load("@zxcvbn-ts/language-en") as typeof import("@zxcvbn-ts/language-en");
    estimator = new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...english.dictionary },
      graphs: common.adjacencyGraphs,
      translations: english.translations,
    });
  }
  return estimator;
};

export interface PasswordVerdict {
  readonly strong: boolean;
  /** What to do about a weak one, in the estimator's words. */
  readonly advice: string;
}

/** Whether a password is strong enough; the person's own email and account name count as known words. */
export function judgePassword(password: string, knownWords: readonly string[] = []): PasswordVerdict {
  const result = zxcvbn().check(
    password,
    knownWords.flatMap((word) => word.toLowerCase().split(/[^\p{L}\p{N}]+/u)).filter((word) => word.length >= 3),
  );
  if (result.score >= MIN_SCORE) return { strong: true, advice: "" };
  const { warning, suggestions } = result.feedback;
  const advice = [warning, ...suggestions].filter((text): text is string => Boolean(text)).join(" ");
  return { strong: false, advice: advice || "Add more words or characters that are hard to guess." };
}
