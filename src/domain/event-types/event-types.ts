import { callEnded } from "./call-ended.ts";
import { creditsLow } from "./credits-low.ts";
import { customerErased } from "./customer-erased.ts";
import { customerMerged } from "./customer-merged.ts";
import { intentOpened } from "./intent-opened.ts";
import { intentResolved } from "./intent-resolved.ts";

// Every event type an endpoint may subscribe to, in the order the dashboard and the CLI list them.
// A new type is its own module beside this one, and one line here.

export const EVENT_TYPE_DEFINITIONS = [
  intentOpened,
  intentResolved,
  callEnded,
  customerMerged,
  customerErased,
  creditsLow,
] as const;
