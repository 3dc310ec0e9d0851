import type { Platform } from "../../domain/integration.ts";
import { PLATFORM_ADAPTERS, PLATFORMS } from "../../integrations/platforms/platform-adapters.ts";
import type { PlatformEvent } from "../../integrations/platforms/platform-simulation.ts";

// Each platform's webhooks as `simulate` sends them, by their type's name: each adapter's own samples
// (src/integrations/platforms/platform-simulation.ts), listed in the platforms' order.

export type { EventKind, PlatformEvent } from "../../integrations/platforms/platform-simulation.ts";

export const PLATFORM_EVENTS: Readonly<Record<Platform, Readonly<Record<string, PlatformEvent>>>> = Object.fromEntries(
  PLATFORMS.map((platform) => [platform, PLATFORM_ADAPTERS[platform].simulation.events]),
);
