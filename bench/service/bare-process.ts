import { fileURLToPath } from "node:url";
import { type ChildServer, startChildServer } from "./child-process.ts";

/** The bare Fastify route of the HTTP ceiling, in a process of its own like the service. */
export function startBareServer(): Promise<ChildServer> {
  return startChildServer({
    entry: fileURLToPath(new URL("bare-server.ts", import.meta.url)),
    env: { ...process.env },
    readyMessage: "bare listening",
  });
}
