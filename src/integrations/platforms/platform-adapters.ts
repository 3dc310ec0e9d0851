import type { Platform } from "../../domain/integration.ts";
import { elevenlabs } from "./elevenlabs.ts";
import type { PlatformAdapter } from "./platform-adapter.ts";
import { retell } from "./retell.ts";
import { telnyx } from "./telnyx.ts";
import { twilioStudio } from "./twilio-studio.ts";
import { vapi } from "./vapi.ts";

// Every platform an integration can be, by its name in the API. A new one goes at the end: this order is the
// order of the signature headers in a message's digest (src/guards/webhook-replays.ts), which must stay the same
// for the receipts already kept.

export const PLATFORM_ADAPTERS: Readonly<Record<Platform, PlatformAdapter>> = {
  vapi,
  retell,
  elevenlabs,
  telnyx,
  twilio_studio: twilioStudio,
};

/** The adapter of a platform's name; undefined for a name that is none. */
export function platformAdapter(platform: string): PlatformAdapter | undefined {
  return Object.hasOwn(PLATFORM_ADAPTERS, platform) ? PLATFORM_ADAPTERS[platform as Platform] : undefined;
}
