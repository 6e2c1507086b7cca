// What the topology tests share: replicas of the production server behind Caddy
// (deploy/Caddyfile), and reading what they answered and logged.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { startAppServer, type AppServer } from "./app-server";
import { startCaddy, type Answer, type Caddy } from "./caddy";
import { BROWSER_HEADERS, VALID, formBody } from "./contact";

/** A new empty folder for one topology's outbox. */
export const tempOutbox = (name: string) => mkdtempSync(join(tmpdir(), `portfolio-${name}-outbox-`));

/** Two production servers with the same environment, behind Caddy on localhost, as Compose runs them. */
export async function startProxiedReplicas(env: Record<string, string>) {
  const apps: AppServer[] = await Promise.all([startAppServer({ env }), startAppServer({ env })]);
  const caddy: Caddy = await startCaddy({
    upstreams: apps.map((app) => `127.0.0.1:${app.port}`),
    siteAddress: "localhost",
  });
  return {
    apps,
    caddy,
    stop: async () => {
      await caddy.stop();
      await Promise.all(apps.map((app) => app.stop()));
    },
  };
}

/** The site's origin through Caddy, as a browser names it. */
export const siteOrigin = (caddy: Caddy) => `https://localhost:${caddy.httpsPort}`;

/** A no-JS browser's contact post through the proxy, with the Origin it sends. */
export function postThrough(caddy: Caddy, extraHeaders: Record<string, string> = {}): Promise<Answer> {
  return caddy.request("/?index", {
    method: "POST",
    headers: {
      ...BROWSER_HEADERS,
      Origin: siteOrigin(caddy),
      Referer: `${siteOrigin(caddy)}/`,
      "Content-Type": "application/x-www-form-urlencoded",
      ...extraHeaders,
    },
    body: formBody(VALID).toString(),
  });
}

/** How many lines of an app's request log match (one line per request it answered). */
export const logged = (app: AppServer, pattern: RegExp) =>
  app
    .output()
    .split("\n")
    .filter((line) => pattern.test(line)).length;

export const health = async (app: AppServer) => (await fetch(`${app.url}/healthz`)).json();

export function expectSecurityHeaders(answer: Answer) {
  expect(answer.headers["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
  expect(answer.headers["x-content-type-options"]).toBe("nosniff");
  expect(answer.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(answer.headers["permissions-policy"]).toContain("camera=()");
  expect(answer.headers["cross-origin-opener-policy"]).toBe("same-origin");
}

/** Every value of a header as sent, duplicates included. */
export function values(answer: Answer, name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < answer.rawHeaders.length; i += 2) {
    if (answer.rawHeaders[i]!.toLowerCase() === name) out.push(answer.rawHeaders[i + 1]!);
  }
  return out;
}
