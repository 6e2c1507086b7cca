// Caddy (deploy/Caddyfile) with no replica up: its own error answer carries
// the security headers and HSTS as the app's answers do.
import { describe, expect, it } from "vitest";
import { startCaddy } from "../support/caddy";
import { BROWSER_HEADERS } from "../support/contact";
import { freePort } from "../support/free-port";
import { expectSecurityHeaders, values } from "../support/topology";

describe("with no replica up", () => {
  it("the proxy's own error answer carries the headers too", async () => {
    const lonely = await startCaddy({
      upstreams: [`127.0.0.1:${await freePort()}`],
      siteAddress: "localhost",
      readyStatus: 503,
    });
    try {
      const answer = await lonely.request("/", { headers: BROWSER_HEADERS });
      expect(answer.status).toBe(503);
      expectSecurityHeaders(answer);
      expect(values(answer, "strict-transport-security")).toEqual(["max-age=63072000; includeSubDomains"]);
    } finally {
      await lonely.stop();
    }
  }, 60_000);
});
