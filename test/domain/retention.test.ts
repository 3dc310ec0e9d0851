import { describe, expect, test } from "vitest";
import { DomainError } from "../../src/domain/domain-error.ts";
import { isRetentionDays, parseRetentionDays, retentionDaysFromText } from "../../src/domain/retention.ts";

// The one rule for an account's retention, as the admin API, the dashboard's form and the CLI apply it.

describe("retention days", () => {
  test("are whole days from 7 to 365", () => {
    expect([7, 90, 365].map(isRetentionDays)).toEqual([true, true, true]);
    expect([6, 366, 30.5, Number.NaN].map(isRetentionDays)).toEqual([false, false, false, false]);
  });

  test("typed text counts only as whole digits", () => {
    expect(retentionDaysFromText("30")).toBe(30);
    for (const text of ["30.0", "1e2", " 30", "-30", "thirty", "", "0x1e"]) {
      expect(isRetentionDays(retentionDaysFromText(text))).toBe(false);
    }
  });

  test("the API's check names the field it refuses", () => {
    expect(parseRetentionDays(30)).toBe(30);
    expect(() => parseRetentionDays(400)).toThrow(DomainError);
    expect(() => parseRetentionDays(undefined, "days")).toThrow(DomainError);
  });
});
