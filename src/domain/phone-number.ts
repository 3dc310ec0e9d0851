import { type CountryCode, getCountryCallingCode, parsePhoneNumberFromString } from "libphonenumber-js/max";
import { LRUCache } from "lru-cache";

// Caller numbers arrive as "+14155550123", "14155550123", "(415) 555-0123"...
// One caller must have one key, so every number is reduced to E.164 when it
// can be read with confidence, and kept exactly as sent otherwise.

export interface PhoneNumber {
  /** E.164 when the number could be read, otherwise the trimmed input. */
  readonly key: string;
  readonly isE164: boolean;
  /** Toll-free numbers are known from the number itself; telco data has no such value. */
  readonly tollFree: boolean;
}

const DIALLABLE = /^[\d\s().-]+$/;

/**
 * Numbers read lately, by region and text. Reading one with the full metadata
 * takes tens of microseconds, and a call reads its caller's number and the
 * number dialled, which repeat: returning callers, and a business's few lines.
 * Only texts as long as a written phone number are kept, so the cache's size is bounded.
 */
const recentlyRead = new LRUCache<string, PhoneNumber>({ max: 10_000 });
const LONGEST_KEPT = 32;

export function normalizePhoneNumber(raw: string, defaultRegion: string): PhoneNumber {
  if (raw.length > LONGEST_KEPT) return readPhoneNumber(raw, defaultRegion);
  // A region is letters only, so the space cannot be part of it.
  const cacheKey = `${defaultRegion} ${raw}`;
  const known = recentlyRead.get(cacheKey);
  if (known !== undefined) return known;
  const read = readPhoneNumber(raw, defaultRegion);
  recentlyRead.set(cacheKey, read);
  return read;
}

function readPhoneNumber(raw: string, defaultRegion: string): PhoneNumber {
  const trimmed = raw.trim();
  const parsed = trimmed.startsWith("+") ? readInternational(trimmed) : readWithoutPlus(trimmed, defaultRegion);
  if (parsed === undefined) return Object.freeze({ key: trimmed, isE164: false, tollFree: false });
  return Object.freeze({ key: parsed.number, isE164: true, tollFree: parsed.getType() === "TOLL_FREE" });
}

function readInternational(text: string) {
  const parsed = parsePhoneNumberFromString(text);
  return parsed?.isValid() ? parsed : undefined;
}

/**
 * Without a plus the digits may carry a country code ("14155550123") or not
 * ("4155550123"). Digits that begin with the default region's calling code
 * are read as international first; otherwise the national reading wins, and
 * the other reading is the fallback.
 */
function readWithoutPlus(text: string, defaultRegion: string) {
  if (!DIALLABLE.test(text)) return undefined;
  const digits = text.replace(/\D/g, "");
  if (digits.length === 0) return undefined;
  const international = () => readInternational(`+${digits}`);
  const national = () => {
    const parsed = parsePhoneNumberFromString(text, { defaultCountry: defaultRegion as CountryCode });
    return parsed?.isValid() ? parsed : undefined;
  };
  const regionCode = callingCodeOf(defaultRegion);
  return regionCode !== undefined && digits.startsWith(regionCode)
    ? (international() ?? national())
    : (national() ?? international());
}

function callingCodeOf(region: string): string | undefined {
  try {
    return getCountryCallingCode(region as CountryCode);
  } catch {
    return undefined;
  }
}
