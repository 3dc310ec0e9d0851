import { readEnv } from "./config.ts";
import { serve } from "./serve.ts";
import { startupFailureLine } from "./startup-failure.ts";

// The only entry of `npm start`: the service in this process until SIGTERM or SIGINT.

serve(readEnv()).catch((error) => {
  process.stderr.write(`${startupFailureLine(error)}\n`);
  process.exit(1);
});
