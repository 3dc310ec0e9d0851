import { describe, expect, it } from "vitest";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// The stylesheet and script every page links are static: served with their
// type and a short cache lifetime, without a session or CSRF cookie.

describe("dashboard assets", () => {
  const fixture = useTestServer();

  for (const [path, type, marker] of [
    ["/dashboard/assets/dashboard.css", "text/css; charset=utf-8", "{"],
    ["/dashboard/assets/copy.js", "text/javascript; charset=utf-8", "clipboard"],
    ["/dashboard/assets/favicon.svg", "image/svg+xml", "<svg"],
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

  it("answers /favicon.ico at the root with an icon, cacheable and without cookies", async () => {
    const res = await fetch(`${fixture.server.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/x-icon");
    expect(res.headers.get("cache-control")).toBe("public, max-age=86400");
    expect(res.headers.get("set-cookie")).toBeNull();
    const bytes = new Uint8Array(await res.arrayBuffer());
    // An ICO directory of one 32×32 image.
    expect([...bytes.slice(0, 7)]).toEqual([0, 0, 1, 0, 1, 0, 32]);
  });

  it("links the icon from every page", async () => {
    const html = await (await fetch(`${fixture.server.url}/dashboard/sign-in`)).text();
    expect(html).toContain('<link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml">');
  });

  it("answers 404 for an asset that does not exist", async () => {
    const res = await fetch(`${fixture.server.url}/dashboard/assets/missing.css`);
    expect(res.status).toBe(404);
  });
});
