import { describe, expect, test } from "vitest";
import { normalizePhoneNumber } from "../../src/domain/phone-number.ts";

describe("normalizePhoneNumber", () => {
  test.each(["+14155550123", "14155550123", "(415) 555-0123", "415.555.0123", "+1 415 555 0123", "  +14155550123  "])(
    "%j with region US has the key +14155550123",
    (raw) => {
      expect(normalizePhoneNumber(raw, "US")).toEqual({ key: "+14155550123", isE164: true, tollFree: false });
    },
  );

  test("digits with another country's code are read as international when they are not a valid national number", () => {
    expect(normalizePhoneNumber("442071234567", "US")).toEqual({
      key: "+442071234567",
      isE164: true,
      tollFree: false,
    });
  });

  test("a national number is read in the default region", () => {
    expect(normalizePhoneNumber("020 7123 4567", "GB").key).toBe("+442071234567");
  });

  test("a national number of another region is kept as sent", () => {
    expect(normalizePhoneNumber("020 7123 4567", "US")).toEqual({
      key: "020 7123 4567",
      isE164: false,
      tollFree: false,
    });
  });

  test.each(["+18005551234", "18005551234", "(800) 555-1234"])("%j is recognised as toll-free", (raw) => {
    expect(normalizePhoneNumber(raw, "US")).toEqual({ key: "+18005551234", isE164: true, tollFree: true });
  });

  test.each([
    ["abc", "abc"],
    [" abc ", "abc"],
    ["12345", "12345"],
    ["  12345\t", "12345"],
    ["+1234", "+1234"],
  ])("unparseable %j is kept as sent, trimmed, and is not E.164", (raw, key) => {
    expect(normalizePhoneNumber(raw, "US")).toEqual({ key, isE164: false, tollFree: false });
  });

  test("an unknown default region does not break the international reading", () => {
    expect(normalizePhoneNumber("14155550123", "ZZ").key).toBe("+14155550123");
  });

  // Readings are kept (an LRU cache by region and text): a text read in one region must not answer for another.
  test("the same text read in one region, then another, then the first again, is read in each", () => {
    const text = "020 7946 0018";
    expect(normalizePhoneNumber(text, "GB")).toEqual({ key: "+442079460018", isE164: true, tollFree: false });
    expect(normalizePhoneNumber(text, "US")).toEqual({ key: text, isE164: false, tollFree: false });
    expect(normalizePhoneNumber(text, "GB").key).toBe("+442079460018");
  });
});
