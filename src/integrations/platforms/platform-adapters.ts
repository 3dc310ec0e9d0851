import type { Platform } from "../../domain/integration.ts";
import { elevenlabs } from "./elevenlabs.ts";
import type { PlatformAdapter } from "./platform-adapter.ts";
import { retell } from "./retell.ts";
import { telnyx } from "./telnyx.ts";
import { twilioStudio } from "./twilio-studio.ts";
import { vapi } from "./vapi.ts";

// Every platform an integration can be, by its name in the API: the one list the admin API, the CLI, the
// dashboard and the simulator read. A new one goes at the end: this order is the order of the signature headers in
// a message's digest (src/guards/webhook-replays.ts), which must stay the same for the receipts already kept.

export const PLATFORM_ADAPTERS: Readonly<Record<Platform, PlatformAdapter>> = {
  vapi,
  retell,
  elevenlabs,
  telnyx,
  twilio_studio: twilioStudio,
};

/**
 * The platforms as the API, the CLI and the dashboard list them (a refusal's "Expected one of"). Twilio Studio was
 * listed before Telnyx, whose adapter came first in the digest's order; clients have read that list since, so
 * those five keep it, and a platform added after them comes last, in the registry's order.
 */
const LISTED_BEFORE_THE_REGISTRY: readonly Platform[] = ["vapi", "retell", "elevenlabs", "twilio_studio", "telnyx"];
export const PLATFORMS: readonly Platform[] = [
  ...new Set([...LISTED_BEFORE_THE_REGISTRY.filter(isPlatform), ...Object.keys(PLATFORM_ADAPTERS)]),
];

export function isPlatform(value: string): value is Platform {
  return Object.hasOwn(PLATFORM_ADAPTERS, value);
}

/** The adapter of a platform's name; undefined for a name that is none. */
export function platformAdapter(platform: string): PlatformAdapter | undefined {
  return isPlatform(platform) ? PLATFORM_ADAPTERS[platform] : undefined;
}
