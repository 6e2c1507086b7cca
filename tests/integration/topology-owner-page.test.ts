// The owner's page through deploy/Caddyfile in front of two replicas and Redis, as compose.yaml runs it:
// answered over HTTPS with its own headers (never stored, not indexed, the strict hashed CSP), its scripts too.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Caddy } from "../support/caddy";
import { startRedisServer, type RedisServer } from "../support/redis-server";
import { expectSecurityHeaders, startProxiedReplicas, tempOutbox } from "../support/topology";

let redis: RedisServer;
let caddy: Caddy;
let stop: () => Promise<void>;

beforeAll(async () => {
  redis = await startRedisServer();
  ({ caddy, stop } = await startProxiedReplicas({
    TRUST_PROXY: "1",
    REDIS_URL: redis.url,
    OUTBOX_DIR: tempOutbox("topology-owner"),
    SITE_URL: "https://localhost",
    SESSION_SECRET: "topology-owner-secret-0123456789abcdef",
  }));
}, 120_000);

afterAll(async () => {
  await stop?.();
  await redis?.stop();
});

it("answers /owner through Caddy: private, no-store, noindex, the strict hashed CSP", async () => {
  const page = await caddy.request("/owner");
  expect(page.status).toBe(200);
  expectSecurityHeaders(page);
  expect(page.headers["cache-control"]).toBe("private, no-store");
  expect(page.headers["x-robots-tag"]).toBe("noindex");
  expect(page.headers["content-security-policy"]).toMatch(
    /script-src 'self' 'sha256-[^']+'.*'strict-dynamic'/,
  );
  expect(page.headers["strict-transport-security"]).toBeDefined();
  expect(page.body).toContain("Sign in with a passkey");
  const own = /"module":\s*"(\/assets\/owner-[\w-]+\.js)"/.exec(page.body)?.[1];
  expect(own).toBeDefined();
  expect((await caddy.request(own!)).headers["cache-control"]).toBe("private, no-store");
});
