import { describe, expect, it } from "vitest";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// The stylesheet and script every page links are static: served with their
// type and a short cache lifetime, without a session or CSRF cookie.

describe("dashboard assets", () => {
  const fixture = useTestServer();

  for (const [path, type, marker] of [
    ["/dashboard/assets/dashboard.css", "text/css; charset=utf-8", "{"],
    ["/dashboard/assets/copy.js", "text/javascript; charset=utf-8", "clipboard"],
  ] as const) {
    it(`serves ${path} cacheable, typed and without cookies`, async () => {
      const res = await fetch(`${fixture.server.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(type);
      expect(res.headers.get("cache-control")).toBe("public, max-age=300");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(await res.text()).toContain(marker);
    });
  }

  it("answers 404 for an asset that does not exist", async () => {
    const res = await fetch(`${fixture.server.url}/dashboard/assets/missing.css`);
    expect(res.status).toBe(404);
  });
});
