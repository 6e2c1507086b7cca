// /healthz as deploys and the HEALTHCHECK use it, and what the production
// server writes to its log: one line per request, one JSON line per contact
// outcome, never a message body, an address or a key.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { startAppServer, type AppServer } from "../support/app-server";
import { startRedisServer } from "../support/redis-server";
import { until } from "../support/until";
import { BROWSER_HEADERS, VALID, relayEnv, postForm } from "../support/contact";

const PRIVATE_KEY = "private_test_SECRET_000";
const secrets = () =>
  Object.entries(relayEnv(""))
    .filter(([name, value]) => name.startsWith("EMAILJS_") && value)
    .map(([, value]) => value)
    .concat(PRIVATE_KEY);

let fake: EmailJsFake;
let relay: AppServer;
const outboxDir = mkdtempSync(join(tmpdir(), "portfolio-health-relay-"));
beforeAll(async () => {
  fake = await startEmailJsFake();
  relay = await startAppServer({
    env: {
      ...relayEnv(fake.url, { OUTBOX_DIR: outboxDir }),
      EMAILJS_PRIVATE_KEY: PRIVATE_KEY,
      CONTACT_RATE_LIMIT_MAX: "1000",
    },
  });
}, 60_000);
afterAll(async () => {
  await relay?.stop();
  await fake?.close();
  rmSync(outboxDir, { recursive: true, force: true });
});

const post = (values: Record<string, string>) =>
  postForm(`${relay.url}/_root.data?index`, values).then((response) => response.text());

const health = async (url = relay.url): Promise<unknown> => (await fetch(`${url}/healthz`)).json();
beforeEach(() => fake.reset());

describe("/healthz", () => {
  it("answers 200 with the status and the mail mode, uncached, naming no key", async () => {
    const response = await fetch(`${relay.url}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ status: "ok", mail: "relay", store: "ok", rateLimit: "memory" });
    for (const secret of secrets()) expect(text).not.toContain(secret);
  });

  it("never calls the provider, and answers while the provider hangs", async () => {
    fake.setMode({ kind: "hang" });
    for (let i = 0; i < 3; i++) expect((await fetch(`${relay.url}/healthz`)).status).toBe(200);
    expect(fake.requests).toHaveLength(0);
  });

  // A public count of waiting messages told an attacker the provider was down.
  it("does not tell anyone that messages are waiting", async () => {
    fake.setMode({ kind: "status", status: 500 });
    await post({ ...VALID, subject: "health-count" });
    await post({ ...VALID, subject: "health-count 2" });
    expect(await health()).toEqual({ status: "ok", mail: "relay", store: "ok", rateLimit: "memory" });
  });

  it("names the outbox mode when no EmailJS ids are set", async () => {
    const outbox = await startAppServer({
      env: { OUTBOX_DIR: mkdtempSync(join(tmpdir(), "portfolio-health-outbox-")) },
    });
    try {
      expect(await (await fetch(`${outbox.url}/healthz`)).json()).toEqual({
        status: "ok",
        mail: "outbox",
        store: "ok",
        rateLimit: "memory",
      });
    } finally {
      await outbox.stop();
    }
  }, 60_000);
});

/** Where Redis would be, a listener that hangs up at once: each connection is one try to reach Redis. */
async function hangingUp() {
  let tries = 0;
  const server = createServer((socket) => {
    tries++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { port, tries: () => tries, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe("/healthz with REDIS_URL and no Redis there", () => {
  it("starts, stays 200, names the in-memory limit, and says so once without the URL's password", async () => {
    const noRedis = await hangingUp();
    const url = `redis://:redis_SECRET_pw@127.0.0.1:${noRedis.port}`;
    const app = await startAppServer({
      env: { REDIS_URL: url, OUTBOX_DIR: mkdtempSync(join(tmpdir(), "portfolio-health-redis-")) },
    });
    try {
      const body = await (await fetch(`${app.url}/healthz`)).text();
      expect(JSON.parse(body)).toEqual({
        status: "ok",
        mail: "outbox",
        store: "ok",
        rateLimit: "memory",
        redis: "down",
      });
      const sent = await postForm(`${app.url}/?index`, VALID);
      expect(sent.status).toBe(303);
      const before = noRedis.tries();
      await until(() => noRedis.tries() >= before + 3, "three more tries to reach Redis");
      expect(app.output().match(/\[rate-limit\] Redis unreachable: using the in-memory limit/g)).toHaveLength(
        1,
      );
      expect(app.output() + body).not.toContain("redis_SECRET_pw");
    } finally {
      await app.stop();
      await noRedis.close();
    }
  }, 60_000);
});

// /healthz once said "up" while Redis was paused or out of memory.
describe("/healthz with a Redis that answers late or refuses writes", () => {
  it("says slow, then failing, logs each once, and up again when Redis is well", async () => {
    const redis = await startRedisServer();
    const admin = new Redis(redis.url);
    const app = await startAppServer({
      env: { REDIS_URL: redis.url, OUTBOX_DIR: mkdtempSync(join(tmpdir(), "portfolio-health-redis-")) },
    });
    const state = async () => (await health(app.url)) as { rateLimit: string; redis: string };
    try {
      await vi.waitFor(
        async () => expect(await state()).toMatchObject({ redis: "up", rateLimit: "redis" }),
        10_000,
      );

      // A probe is reused for a second (a flood of /healthz makes one write a second): wait for the next.
      const settles = (expected: object) =>
        vi.waitFor(async () => expect(await state()).toEqual(expected), 10_000);
      await admin.call("CLIENT", "PAUSE", "5000", "WRITE");
      await settles({ status: "ok", mail: "outbox", store: "ok", rateLimit: "memory", redis: "slow" });
      await admin.call("CLIENT", "UNPAUSE");
      await settles({ status: "ok", mail: "outbox", store: "ok", rateLimit: "redis", redis: "up" });

      await admin.config("SET", "maxmemory-policy", "noeviction");
      await admin.config("SET", "maxmemory", "1");
      await settles({ status: "ok", mail: "outbox", store: "ok", rateLimit: "memory", redis: "failing" });
      expect(await state()).toMatchObject({ redis: "failing" });
      await admin.config("SET", "maxmemory", "0");
      await settles({ status: "ok", mail: "outbox", store: "ok", rateLimit: "redis", redis: "up" });

      expect(app.output().match(/\[rate-limit\] Redis is slow to answer/g)).toHaveLength(1);
      expect(app.output().match(/\[rate-limit\] Redis is refusing writes/g)).toHaveLength(1);
    } finally {
      admin.disconnect();
      await app.stop();
      await redis.stop();
    }
  }, 60_000);
});

describe("/healthz under a flood", () => {
  it("100 requests at once make one Redis write, not 100", async () => {
    const redis = await startRedisServer();
    const admin = new Redis(redis.url);
    const app = await startAppServer({
      env: { REDIS_URL: redis.url, OUTBOX_DIR: mkdtempSync(join(tmpdir(), "portfolio-health-flood-")) },
    });
    const writes = async () =>
      Number(/cmdstat_set:calls=(\d+)/.exec(await admin.info("commandstats"))?.[1] ?? 0);
    try {
      await vi.waitFor(async () => expect(await health(app.url)).toMatchObject({ redis: "up" }), 10_000);
      const before = await writes();
      await Promise.all(Array.from({ length: 100 }, () => health(app.url)));
      expect((await writes()) - before).toBeLessThanOrEqual(2);
    } finally {
      admin.disconnect();
      await app.stop();
      await redis.stop();
    }
  }, 60_000);
});

describe("logs", () => {
  /** Waits for the server's log to grow past `from` with `count` lines matching. */
  async function linesAfter(from: number, match: RegExp, count: number): Promise<string[]> {
    const lines = () =>
      relay
        .output()
        .slice(from)
        .split("\n")
        .filter((line) => match.test(line));
    await until(() => lines().length >= count, `${count} log lines matching ${match}`);
    return lines();
  }

  it("has one line per request", async () => {
    const from = relay.output().length;
    const paths = ["/healthz", "/", "/no-such-page", "/_root.data"];
    for (const path of paths) await (await fetch(`${relay.url}${path}`, { headers: BROWSER_HEADERS })).text();
    const lines = await linesAfter(from, /^(GET|POST) \//, paths.length);
    expect(lines.map((line) => line.split(" ").slice(0, 3).join(" "))).toEqual([
      "GET /healthz 200",
      "GET / 200",
      "GET /no-such-page 404",
      "GET /_root.data 200",
    ]);
  });

  it("has one JSON line per contact outcome, without bodies, addresses or keys", async () => {
    const from = relay.output().length;
    await post(VALID);
    await post({ ...VALID, email: "someone-else@example.org", message: "" });
    const lines = await linesAfter(from, /"event":"contact"/, 3);
    const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toEqual([
      expect.objectContaining({ outcome: "accepted", transport: "relay" }),
      expect.objectContaining({
        outcome: "relayed",
        ok: true,
        upstreamStatus: 200,
        durationMs: expect.any(Number),
      }),
      expect.objectContaining({ outcome: "refused", status: 400, reason: "invalid_fields" }),
    ]);
    const logged = lines.join("\n");
    for (const value of [...Object.values(VALID), "someone-else@example.org", ...secrets()]) {
      expect(logged).not.toContain(value);
    }
    expect(logged).not.toMatch(/@/);
  });
});
