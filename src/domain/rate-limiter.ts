import type { WindowDecision, WindowState } from "./rolling-window.ts";

// The rolling windows' store, as its users see it; the implementations (this process's memory, Redis, and
// Redis with this process's memory as its fallback) are in src/guards/.

/** Where rolling windows live: in this process, or shared through Redis. */
export interface RateLimiter {
  hit(key: string, max: number, nowMs: number): Promise<WindowDecision>;
  /** The window as it stands, without counting a request. */
  peek(key: string, nowMs: number): Promise<WindowState>;
  close(): Promise<void>;
}

export interface RateLimiterState {
  /** True while the windows are Redis's, false while they are this instance's own. */
  readonly shared: boolean;
  /** How many times Redis stopped answering since the start. */
  readonly outages: number;
}

export interface FallbackRateLimiter extends RateLimiter {
  state(): RateLimiterState;
}
