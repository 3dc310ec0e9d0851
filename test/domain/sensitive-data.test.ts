import { describe, expect, test } from "vitest";
import type { Issues } from "../../src/domain/field-checks.ts";
import { looksSensitive, passesLuhn, REDACTED, screenVariableValue } from "../../src/domain/sensitive-data.ts";

describe("passesLuhn", () => {
  test.each(["4111111111111111", "5555555555554444", "378282246310005", "79927398713"])("%s passes", (digits) => {
    expect(passesLuhn(digits)).toBe(true);
  });
  test.each(["4111111111111112", "79927398710", "1234567812345678"])("%s fails", (digits) => {
    expect(passesLuhn(digits)).toBe(false);
  });
});

describe("looksSensitive", () => {
  test.each([
    "4111 1111 1111 1111",
    "4111-1111-1111-1111",
    "4111111111111111",
    "card 4111111111111111 exp 12/25",
    "5555 5555 5555 4444",
    "3782 822463 10005",
  ])("Luhn-valid card number %j is sensitive", (value) => {
    expect(looksSensitive(value)).toBe(true);
  });

  test.each(["4111111111111112", "4111 1111 1111 1112"])("Luhn-invalid card-length number %j is not", (value) => {
    expect(looksSensitive(value)).toBe(false);
  });

  test.each(["123-45-6789", "ssn 078-05-1120 on file"])("SSN %j is sensitive", (value) => {
    expect(looksSensitive(value)).toBe(true);
  });

  test.each(["000-12-3456", "666-12-3456", "900-12-3456", "123-00-4567", "123-45-0000", "1123-45-6789"])(
    "number %j outside the issued SSN ranges or shape is not",
    (value) => {
      expect(looksSensitive(value)).toBe(false);
    },
  );

  test.each(["", "Ann", "prefers email", "order 12345", "+14155550123", "(415) 555-0123", "2025-01-31"])(
    "ordinary text or phone number %j is not",
    (value) => {
      expect(looksSensitive(value)).toBe(false);
    },
  );
});

describe("screenVariableValue", () => {
  const CARD = "4111 1111 1111 1111";

  test("reject adds one issue with the given path and keeps the value", () => {
    const issues: Issues = [];
    expect(screenVariableValue(issues, ["variables", "card"], CARD, "reject")).toBe(CARD);
    expect(issues).toEqual([{ path: ["variables", "card"], message: expect.stringMatching(/card number/) }]);
  });

  test("redact returns [REDACTED] without an issue", () => {
    const issues: Issues = [];
    expect(screenVariableValue(issues, ["variables", "card"], CARD, "redact")).toBe(REDACTED);
    expect(REDACTED).toBe("[REDACTED]");
    expect(issues).toEqual([]);
  });

  test("off passes the value through without an issue", () => {
    const issues: Issues = [];
    expect(screenVariableValue(issues, ["variables", "card"], CARD, "off")).toBe(CARD);
    expect(issues).toEqual([]);
  });

  test.each(["reject", "redact", "off"] as const)("%s passes an ordinary value unchanged", (policy) => {
    const issues: Issues = [];
    expect(screenVariableValue(issues, ["variables", "name"], "Ann", policy)).toBe("Ann");
    expect(issues).toEqual([]);
  });
});

describe("card numbers among other digit groups", () => {
  test.each(["4111 1111 1111 1111 12/25", "exp 12 25 4111 1111 1111 1111", "room 2 4111 1111 1111 1111"])(
    "%s is sensitive",
    (value) => {
      expect(looksSensitive(value)).toBe(true);
    },
  );
});

describe("digits inside identifiers", () => {
  test.each(["marker-a3969093-07ee-4b70-b582-4075157337f6", "a3969093-07ee-4b70-b582-4075157337f6"])(
    "%s is not a card number",
    (value) => {
      expect(looksSensitive(value)).toBe(false);
    },
  );
});

describe("card numbers written with other separators or letters around them", () => {
  test.each([
    "4111.1111.1111.1111",
    "4111/1111/1111/1111",
    "4111 - 1111 - 1111 - 1111",
    "cc4111111111111111",
    "order 4111111111111111x",
    "card:4111-1111-1111-1111exp",
  ])("%j is sensitive", (value) => {
    expect(looksSensitive(value)).toBe(true);
  });

  test.each(["4111.1111.1111.1112", "cc4111111111111112"])("Luhn-invalid %j is not", (value) => {
    expect(looksSensitive(value)).toBe(false);
  });
});

describe("national identifiers", () => {
  test.each(["078 05 1120", "078.05.1120", "078/05/1120", "AB 12 34 56 C", "JG123456A", "nino AB123456D"])(
    "%j is sensitive",
    (value) => {
      expect(looksSensitive(value)).toBe(true);
    },
  );

  test.each([
    "078-05 1120",
    "078051120",
    "GB 12 34 56 A",
    "QQ 12 34 56 C",
    "AB 12 34 56 E",
    "+1 415 555 0123",
    "415.555.0123",
  ])("%j (mixed separators, bare digits, a prefix never allocated, a phone number) is not", (value) => {
    expect(looksSensitive(value)).toBe(false);
  });
});
