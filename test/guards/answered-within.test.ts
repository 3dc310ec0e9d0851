import { once } from "node:events";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { answeredWithin, CommandTimeoutError } from "../../src/guards/answered-within.ts";

// The Redis command timeout: a reply that never comes fails the command; a reply that came while this process's
// event loop was held up does not.

let server: net.Server;
let client: net.Socket;
let peer: net.Socket;
beforeAll(async () => {
  server = net.createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const accepted = once(server, "connection");
  client = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
  await once(client, "connect");
  [peer] = (await accepted) as [net.Socket];
});
afterAll(async () => {
  client.destroy();
  peer.destroy();
  server.close();
});

/** Blocks the event loop, as a long task or a garbage collection does. */
function holdEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

describe("answeredWithin", () => {
  test("a command never answered fails with CommandTimeoutError, naming REDIS_TIMEOUT_MS", async () => {
    const never = new Promise<never>(() => {});
    const failed = await answeredWithin(never, 20).catch((error) => error);
    expect(failed).toBeInstanceOf(CommandTimeoutError);
    expect(failed.message).toBe("Redis did not answer within 20 ms (REDIS_TIMEOUT_MS)");
  });

  test("a reply that arrived while the event loop was held past the timeout is taken, not timed out", async () => {
    const reply = once(client, "data").then(([chunk]) => String(chunk));
    // Two timers of the same length set together run in one pass over the timers, with no read of the sockets
    // between them: the first sends the reply and holds the loop, the second is the command's timeout.
    const held = new Promise<void>((resolve) =>
      setTimeout(() => {
        peer.write("+PONG\r\n");
        holdEventLoop(100);
        resolve();
      }, 20),
    );
    const answered = answeredWithin(reply, 20);
    await held;
    await expect(answered).resolves.toBe("+PONG\r\n");
  });

  test("a command that fails fails with its own error", async () => {
    await expect(answeredWithin(Promise.reject(new Error("ECONNREFUSED")), 20)).rejects.toThrow("ECONNREFUSED");
  });
});
