// The contact limit with REDIS_URL, against a real redis-server: one count for
// every replica, kept across restarts of the app, and an in-memory limit while
// Redis is away, announced once per outage, with recovery on its own.
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { describe, expect, it } from "vitest";
import { createRateLimiter } from "~/contact/guard/limits.server";
import { freePort } from "../support/free-port";
import { useRedisServer } from "../support/use-redis-server";
import { until } from "../support/until";

const LIMIT = { max: 3, windowSeconds: 600 };

const redis = useRedisServer();

/** One app process's view: its own connection and limiter, and what it logged. */
function replica(url = redis.url) {
  const lines: string[] = [];
  const link = redis.connect(
    {
      info: (line: string) => lines.push(`info ${line}`),
      warn: (line: string) => lines.push(`warn ${line}`),
    },
    url,
  );
  return { link, lines, limiter: createRateLimiter(LIMIT, link, "contact") };
}

/** "ok" when the unit was granted, "limited" when refused. */
async function consume(limiter: RateLimiterAbstract, key: string): Promise<"ok" | "limited"> {
  try {
    await limiter.consume(key);
    return "ok";
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return "limited";
    throw rejection;
  }
}

describe("with Redis up", () => {
  it("two replicas share one count, and a restarted replica still sees it", async () => {
    const a = replica();
    const b = replica();
    await until(() => a.link.state() === "up" && b.link.state() === "up", "both connections");
    const key = "198.51.100.1";
    expect([
      await consume(a.limiter, key),
      await consume(b.limiter, key),
      await consume(a.limiter, key),
    ]).toEqual(["ok", "ok", "ok"]);
    expect(await consume(b.limiter, key)).toBe("limited");
    expect(await consume(a.limiter, key)).toBe("limited");

    a.link.close();
    const restarted = replica();
    await until(() => restarted.link.state() === "up", "the restarted replica");
    expect(await consume(restarted.limiter, key)).toBe("limited");
    expect(await consume(restarted.limiter, "198.51.100.2")).toBe("ok");
    expect(a.lines.concat(b.lines)).toEqual([
      "info [rate-limit] Redis connected: the contact limit is shared by every replica",
      "info [rate-limit] Redis connected: the contact limit is shared by every replica",
    ]);
  });

  it("a refund gives the unit back to every replica", async () => {
    const a = replica();
    const b = replica();
    await until(() => a.link.state() === "up" && b.link.state() === "up", "both connections");
    const key = "198.51.100.3";
    for (let i = 0; i < LIMIT.max; i++) expect(await consume(a.limiter, key)).toBe("ok");
    await a.limiter.reward(key);
    expect(await consume(b.limiter, key)).toBe("ok");
    expect(await consume(b.limiter, key)).toBe("limited");
  });
});

describe("while Redis is away", () => {
  it("limits in memory, says so once, and shares the count again when Redis is back", async () => {
    const a = replica();
    await until(() => a.link.state() === "up", "the connection");
    const key = "198.51.100.4";
    for (let i = 0; i < LIMIT.max; i++) expect(await consume(a.limiter, key)).toBe("ok");

    await redis.stop();
    await until(() => a.link.state() === "down", "the outage to be seen");
    // The in-memory limit is fresh and of the same size: the form works, and is still limited.
    const during = [];
    for (let i = 0; i <= LIMIT.max; i++) during.push(await consume(a.limiter, key));
    expect(during).toEqual(["ok", "ok", "ok", "limited"]);
    expect(a.lines.filter((line) => line.includes("unreachable"))).toEqual([
      "warn [rate-limit] Redis unreachable: using the in-memory limit until it is back",
    ]);

    await redis.start();
    await until(() => a.link.state() === "up", "the reconnection");
    expect(a.lines.at(-1)).toBe("info [rate-limit] Redis is back: the contact limit is shared again");
    // The count kept in Redis (append-only file) is the one in force again.
    expect(await consume(a.limiter, key)).toBe("limited");
    expect(await consume(a.limiter, "198.51.100.5")).toBe("ok");
  }, 30_000);

  it("starts without Redis, never throws, and says so once however often it retries", async () => {
    const port = await freePort();
    const lonely = replica(`redis://127.0.0.1:${port}`);
    let retries = 0;
    lonely.link.client.on("reconnecting", () => retries++);
    await until(() => lonely.lines.length > 0, "the outage line");
    expect(lonely.link.state()).toBe("down");
    expect(await consume(lonely.limiter, "198.51.100.6")).toBe("ok");
    const before = retries;
    await until(() => retries >= before + 3, "three more failed reconnects");
    expect(lonely.lines).toEqual([
      "warn [rate-limit] Redis unreachable: using the in-memory limit until it is back",
    ]);
  });
});
