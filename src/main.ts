import { readEnv } from "./config.ts";
import { oneLine, serve } from "./serve.ts";

// The only entry of `npm start`: the service in this process until SIGTERM or SIGINT.

serve(readEnv()).catch((error) => {
  process.stderr.write(`${oneLine(error)}\n`);
  process.exit(1);
});
