export { type CallerClaim, type CallMemory, type CallMemoryOptions, createCallMemory } from "./call-memory.ts";
export { type CallToolsHandlers, createCallTools } from "./call-tools.ts";
export { type CallerContextAnswer, type RenderOptions, renderCallerContext } from "./context-rendering.ts";
export { NotASipCallerError, type SipStartOptions, startRequestFromSip } from "./sip-attributes.ts";
export { waitForSipCaller } from "./sip-caller.ts";
