// The deployment as compose.yaml runs it, from real parts on 127.0.0.1:
// deploy/Caddyfile under the system's caddy, in front of two production app
// processes (TRUST_PROXY=1, one REDIS_URL, one outbox folder) and one
// redis-server. What a visitor's browser meets: HTTPS with the internal CA,
// the redirect from HTTP, the security headers on everything, both replicas,
// one contact limit whichever replica answers, and a form that keeps working
// while Redis is away.
import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppServer } from "../support/app-server";
import type { Caddy } from "../support/caddy";
import { BROWSER_HEADERS, formBody, VALID } from "../support/contact";
import { decode, raw } from "../support/raw-http";
import { startRedisServer, type RedisServer } from "../support/redis-server";
import {
  expectSecurityHeaders,
  health,
  logged,
  postThrough,
  startProxiedReplicas,
  tempOutbox,
  values,
} from "../support/topology";
import { until } from "../support/until";

const RATE_LIMIT_MAX = 5;

let redis: RedisServer;
let apps: AppServer[] = [];
let caddy: Caddy;
let outbox: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  redis = await startRedisServer();
  outbox = tempOutbox("topology");
  ({ apps, caddy, stop } = await startProxiedReplicas({
    TRUST_PROXY: "1",
    REDIS_URL: redis.url,
    OUTBOX_DIR: outbox,
    CONTACT_RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
  }));
}, 120_000);

afterAll(async () => {
  await stop?.();
  await redis?.stop();
});

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
    // Each replica connects to Redis on its own after it starts answering: wait for it, on a busy machine too.
    for (const app of apps) {
      await expect
        .poll(() => health(app))
        .toEqual({ status: "ok", mail: "outbox", store: "ok", rateLimit: "redis", redis: "up" });
    }
    const answer = await caddy.request("/healthz");
    expect(JSON.parse(answer.body)).toMatchObject({ status: "ok", rateLimit: "redis", redis: "up" });
  });
});

describe("posts from another site, through the proxy", () => {
  const elsewhere = { Origin: "https://elsewhere.example", Referer: "https://elsewhere.example/" };

  it.each([
    ["the form's page", "/?index"],
    ["the form's data", "/_root.data?index"],
    ["the theme action", "/action/set-theme"],
  ])("%s is refused with 403, and nothing is kept", async (_, path) => {
    const before = readdirSync(outbox).length;
    const answer = await caddy.request(path, {
      method: "POST",
      headers: { ...BROWSER_HEADERS, ...elsewhere, "Content-Type": "application/x-www-form-urlencoded" },
      body: formBody({ ...VALID, theme: "light" }).toString(),
    });
    expect(answer.status).toBe(403);
    expect(readdirSync(outbox)).toHaveLength(before);
  });
});

// In order: the limit's count carries from one test to the next.
describe("the contact limit, shared in Redis", () => {
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
    expect(readdirSync(outbox).filter((file) => file.endsWith(".json"))).toHaveLength(RATE_LIMIT_MAX);
  });

  it("with Redis stopped, posts still work on the in-memory limit and /healthz says redis is down", async () => {
    await redis.stop();
    await until(
      async () => (await Promise.all(apps.map(health))).every((body) => body.redis === "down"),
      "both replicas to see the outage",
    );
    for (const app of apps) {
      expect(await health(app)).toEqual({
        status: "ok",
        mail: "outbox",
        store: "ok",
        rateLimit: "memory",
        redis: "down",
      });
    }
    expect((await postThrough(caddy)).status).toBe(303);
    expect((await postThrough(caddy)).status).toBe(303);
    for (const app of apps) {
      expect(app.output().match(/Redis unreachable: using the in-memory limit/g)).toHaveLength(1);
    }
  });

  it("with Redis started again, the shared limit is back", async () => {
    await redis.start();
    await until(
      async () => (await Promise.all(apps.map(health))).every((body) => body.redis === "up"),
      "both replicas to reconnect",
    );
    for (const app of apps) expect(app.output()).toContain("Redis is back");
    // The five posts counted before the outage are still counted, on either replica.
    expect((await postThrough(caddy)).status).toBe(429);
    expect((await postThrough(caddy)).status).toBe(429);
  });
});
