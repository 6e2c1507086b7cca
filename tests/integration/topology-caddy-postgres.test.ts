// The deployment as compose.yaml runs it, from real parts on 127.0.0.1:
// deploy/Caddyfile under the system's caddy, in front of two production app
// processes (TRUST_PROXY=1, one DATABASE_URL, each with a folder of its own,
// no EmailJS ids). What a visitor's browser meets: HTTPS with the internal CA,
// the redirect from HTTP, the security headers on everything, both replicas,
// and one contact limit whichever replica answers. The database stopped and
// started: rate-limit-postgres.test.ts and store-faults-postgres.test.ts.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { startCaddy, type Caddy } from "../support/caddy";
import { BROWSER_HEADERS, formBody, VALID } from "../support/contact";
import { freshDatabase } from "../support/postgres-server";
import { decode, raw } from "../support/raw-http";
import { expectSecurityHeaders, health, logged, postThrough, values } from "../support/topology";
import { until } from "../support/until";

const RATE_LIMIT_MAX = 5;

let apps: AppServer[] = [];
let caddy: Caddy;
/** Each replica's own folder, where it writes the messages it accepts (outbox mode). */
let outboxes: string[] = [];

beforeAll(async () => {
  const database = await freshDatabase();
  outboxes = [0, 1].map(() => mkdtempSync(join(tmpdir(), "portfolio-topology-outbox-")));
  apps = await Promise.all(
    outboxes.map((outbox) =>
      startAppServer({
        env: {
          TRUST_PROXY: "1",
          DATABASE_URL: database,
          OUTBOX_DIR: outbox,
          CONTACT_RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
        },
      }),
    ),
  );
  caddy = await startCaddy({
    upstreams: apps.map((app) => `127.0.0.1:${app.port}`),
    siteAddress: "localhost",
  });
}, 120_000);

afterAll(async () => {
  await caddy?.stop();
  await Promise.all(apps.map((app) => app.stop()));
  for (const outbox of outboxes) rmSync(outbox, { recursive: true, force: true });
});

/** The messages each replica wrote to its folder. */
const kept = () =>
  outboxes.map((outbox) => readdirSync(outbox).filter((file) => file.endsWith(".json")).length);

describe("HTTPS", () => {
  it("redirects HTTP to HTTPS, keeping the path and query", async () => {
    const answer = await caddy.request("/projects?from=mail", { scheme: "http" });
    expect([301, 302, 307, 308]).toContain(answer.status);
    // Caddy 2.6 names no port in it: right for 443, which Compose publishes.
    const location = new URL(answer.headers.location ?? "", "http://invalid");
    expect([location.protocol, location.hostname, location.pathname + location.search]).toEqual([
      "https:",
      "localhost",
      "/projects?from=mail",
    ]);
  });

  it("serves the site over TLS trusted through Caddy's internal CA only", async () => {
    expect(caddy.rootCa).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const answer = await caddy.request("/", { headers: BROWSER_HEADERS });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain("<html");
  });
});

describe("security headers on every response", () => {
  it("on a page: the app's own policy with its scripts' hashes is kept, not replaced", async () => {
    const page = await caddy.request("/", { headers: BROWSER_HEADERS });
    expectSecurityHeaders(page);
    expect(page.headers["content-security-policy"]).toMatch(
      /script-src 'self'( 'sha256-[^']+')+ 'strict-dynamic'/,
    );
    expect(values(page, "content-security-policy")).toHaveLength(1);
  });

  it("on a hashed asset and a public file, served from disk, compressed and cached as the app says", async () => {
    const page = await caddy.request("/", { headers: BROWSER_HEADERS });
    const asset = /(\/assets\/[\w.-]+\.js)/.exec(page.body)?.[1];
    expect(asset).toBeDefined();
    const script = await caddy.request(asset!, {
      headers: { ...BROWSER_HEADERS, "Accept-Encoding": "gzip" },
    });
    expect(script.status).toBe(200);
    expectSecurityHeaders(script);
    expect(script.headers["content-security-policy"]).toMatch(/^default-src 'none'/);
    expect(script.headers["content-encoding"]).toBe("gzip");
    expect(script.headers["cache-control"]).toMatch(/immutable/);

    const favicon = await caddy.request("/favicon.svg", { headers: BROWSER_HEADERS });
    expect(favicon.status).toBe(200);
    expectSecurityHeaders(favicon);
  });

  it("on a 404", async () => {
    const missing = await caddy.request("/no-such-page", { headers: BROWSER_HEADERS });
    expect(missing.status).toBe(404);
    expectSecurityHeaders(missing);
    const missingAsset = await caddy.request("/assets/no-such-file.js", { headers: BROWSER_HEADERS });
    expect(missingAsset.status).toBe(404);
    expectSecurityHeaders(missingAsset);
  });

  it("HSTS comes from the proxy, once, on pages and files alike", async () => {
    for (const path of ["/", "/favicon.svg", "/no-such-page"]) {
      const answer = await caddy.request(path, { headers: BROWSER_HEADERS });
      expect(values(answer, "strict-transport-security"), path).toEqual([
        "max-age=63072000; includeSubDomains",
      ]);
    }
  });
});

describe("compression: each body under its own ETag", () => {
  // Caddy 2.6 zstd- or gzip-encoded the app's plain page and kept its strong ETag: two bodies, one tag.
  it.each(["zstd", "zstd, gzip;q=0.1, identity", "identity, gzip;q=0.5", "gzip, zstd"])(
    "Accept-Encoding %s: the body is encoded as its ETag says",
    async (acceptEncoding) => {
      const plain = await raw(`${apps[0]!.url}/`, {
        headers: { ...BROWSER_HEADERS, "Accept-Encoding": "identity" },
      });
      const answer = await caddy.request("/", {
        headers: { ...BROWSER_HEADERS, "Accept-Encoding": acceptEncoding },
      });
      expect(answer.status).toBe(200);
      const etag = String(answer.headers.etag);
      expect(etag).toMatch(/^"/);
      const named = /-(br|gzip)"$/.exec(etag)?.[1];
      expect(answer.headers["content-encoding"] ?? "identity").toBe(named ?? "identity");
      if (!named) {
        expect(etag).toBe(plain.headers.etag);
        expect(answer.body).toBe(decode(plain));
      }
    },
  );
});

describe("odd paths through the proxy", () => {
  // Caddy passes a raw backslash on as %5C: react-router's 500, a stack in the replica's log.
  it.each(["/%5C", "/\\", "/%5C%5C?x=1"])("%s is a 404 in one log line, no stack", async (path) => {
    const from = apps.map((app) => app.output().length);
    const since = () => apps.map((app, i) => app.output().slice(from[i])).join("");
    const answer = await caddy.request(path, { headers: BROWSER_HEADERS });
    expect(answer.status).toBe(404);
    await until(async () => since().includes('"reason":"backslash_path"'), "the refusal's log line");
    expect(since()).not.toMatch(/Error|\n\s+at /);
  });
});

describe("the replicas", () => {
  it("both answer visitors through the proxy", async () => {
    const probe = /^GET \/\?replica-probe /;
    for (let i = 0; i < 6; i++) {
      expect((await caddy.request("/?replica-probe", { headers: BROWSER_HEADERS })).status).toBe(200);
    }
    const counts = () => apps.map((app) => logged(app, probe));
    await until(async () => counts().reduce((a, b) => a + b) === 6, "the replicas to log the six visits");
    expect(counts().every((count) => count > 0)).toBe(true);
  });

  it("report the shared limit on /healthz, through the proxy too", async () => {
    for (const app of apps) {
      expect(await health(app)).toEqual({ status: "ok", mail: "outbox", store: "ok", rateLimit: "postgres" });
    }
    const answer = await caddy.request("/healthz");
    expect(JSON.parse(answer.body)).toEqual({
      status: "ok",
      mail: "outbox",
      store: "ok",
      rateLimit: "postgres",
    });
  });
});

describe("posts from another site, through the proxy", () => {
  const elsewhere = { Origin: "https://elsewhere.example", Referer: "https://elsewhere.example/" };

  it.each([
    ["the form's page", "/?index"],
    ["the form's data", "/_root.data?index"],
    ["the theme action", "/action/set-theme"],
  ])("%s is refused with 403, and nothing is kept", async (_, path) => {
    const before = kept();
    const answer = await caddy.request(path, {
      method: "POST",
      headers: { ...BROWSER_HEADERS, ...elsewhere, "Content-Type": "application/x-www-form-urlencoded" },
      body: formBody({ ...VALID, theme: "light" }).toString(),
    });
    expect(answer.status).toBe(403);
    expect(kept()).toEqual(before);
  });
});

describe("the contact limit, shared in PostgreSQL", () => {
  it(`a post with the browser's Origin is a 303, and the sixth from one client is 429 whichever replica answers`, async () => {
    const posts = /^POST \/\?index /;
    const before = apps.map((app) => logged(app, posts));
    const statuses: number[] = [];
    // A forged X-Forwarded-For does not make a new client: the app counts the address Caddy saw.
    for (let i = 0; i <= RATE_LIMIT_MAX; i++) {
      statuses.push((await postThrough(caddy, i % 2 ? { "X-Forwarded-For": `203.0.113.${i}` } : {})).status);
    }
    expect(statuses).toEqual([303, 303, 303, 303, 303, 429]);
    await until(
      async () => apps.every((app, i) => logged(app, posts) > before[i]!),
      "both replicas to answer posts",
    );
    // Each replica wrote what it accepted to its own folder: the count was all they shared.
    const written = kept();
    expect(written.reduce((a, b) => a + b)).toBe(RATE_LIMIT_MAX);
    // Round robin: each took some of the five.
    expect(written.every((count) => count > 0)).toBe(true);
    expect((await postThrough(caddy)).status).toBe(429);
    expect(kept()).toEqual(written);
  });
});
