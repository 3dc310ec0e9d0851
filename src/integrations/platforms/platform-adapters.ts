import type { Platform } from "../../domain/integration.ts";
import { elevenlabs } from "./elevenlabs.ts";
import type { PlatformAdapter } from "./platform-adapter.ts";
import { retell } from "./retell.ts";
import { telnyx } from "./telnyx.ts";
import { twilioStudio } from "./twilio-studio.ts";
import { vapi } from "./vapi.ts";

export const PLATFORM_ADAPTERS: Readonly<Record<Platform, PlatformAdapter>> = {
  vapi,
  retell,
  elevenlabs,
  twilio_studio: twilioStudio,
  telnyx,
};
