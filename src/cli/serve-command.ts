import type { Command } from "./command.ts";

// `caller-context serve`: the service itself, for supervisors that run the
// package's command directly. It returns only by ending the process.

export const serveCommand: Command = {
  name: "serve",
  args: [],
  options: {},
  summary: "run the service in the foreground until SIGTERM or SIGINT (configured as for npm start)",
  async run({ env }) {
    const { serve } = await import("../serve.ts");
    await serve(env);
    return new Promise<never>(() => {});
  },
};
