import { describe, expect, test } from "vitest";
import { ConfigError, envToConfig } from "../../src/config.ts";

// ADMIN_LISTEN as the configuration reads it: the admin API's own loopback
// listener unless told otherwise, `public` the way back.

describe("ADMIN_LISTEN", () => {
  test("unset, the admin API has a loopback listener of its own at a port the system picks", () => {
    expect(envToConfig({}).adminListen).toEqual({ host: "127.0.0.1", port: 0 });
    expect(envToConfig({ ADMIN_LISTEN: "" }).adminListen).toEqual({ host: "127.0.0.1", port: 0 });
  });

  test("public puts the admin API back on the public port (no listener of its own)", () => {
    expect(envToConfig({ ADMIN_LISTEN: "public" }).adminListen).toBeUndefined();
  });

  test("host:port and [v6]:port choose the listener", () => {
    expect(envToConfig({ ADMIN_LISTEN: "10.0.0.5:9090" }).adminListen).toEqual({ host: "10.0.0.5", port: 9090 });
    expect(envToConfig({ ADMIN_LISTEN: "[::1]:9090" }).adminListen).toEqual({ host: "::1", port: 9090 });
  });

  test("anything else is refused in one line that names the way back", () => {
    expect(() => envToConfig({ ADMIN_LISTEN: "everywhere" })).toThrow(ConfigError);
    expect(() => envToConfig({ ADMIN_LISTEN: "everywhere" })).toThrow(
      "Invalid configuration: ADMIN_LISTEN: must be host:port, such as 127.0.0.1:9090 or [::1]:9090, or public",
    );
  });
});
