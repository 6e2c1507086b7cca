// The provider's rate, site-wide: one request per interval across replicas (Redis) or in this process (decision 046).
import type { RedisLink } from "~/lib/redis.server";

export type Pacing = {
  /** Waits at most `maxWaitMs` for a free slot (false: none came); visitors go before the background. */
  slot(who: "visitor" | "background", maxWaitMs: number, stopping?: () => boolean): Promise<boolean>;
  pause(ms: number): Promise<void>;
};

const SLOT_KEY = "portfolio:provider-slot";
const MARGIN = 1.05;
/** A visitor looks again this often; the background comes this much after a slot frees, so visitors go first. */
const VISITOR_POLL_MS = 25;
const BACKGROUND_GRACE_MS = 60;
const BACKGROUND_POLL_MS = 250;
const REDIS_BACKOFF_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createPacing(maxPerSecond: number, redis: RedisLink | null): Pacing {
  const intervalMs = Math.ceil((1_000 / maxPerSecond) * MARGIN);
  const graceMs = Math.min(BACKGROUND_GRACE_MS, Math.ceil(intervalMs / 4));
  let freeAt = 0;
  let redisAwayUntil = 0;

  async function inRedis<T>(
    work: (client: RedisLink["client"]) => Promise<T>,
    inMemory: () => T,
  ): Promise<T> {
    if (redis && Date.now() >= redisAwayUntil) {
      try {
        return await work(redis.client);
      } catch {
        redisAwayUntil = Date.now() + REDIS_BACKOFF_MS;
      }
    }
    return inMemory();
  }

  const tryTake = () =>
    inRedis(
      async (client) => {
        if ((await client.set(SLOT_KEY, "1", "PX", intervalMs, "NX")) === "OK") return 0;
        return Math.max(1, await client.pttl(SLOT_KEY));
      },
      () => {
        const now = Date.now();
        if (now < freeAt) return freeAt - now;
        freeAt = now + intervalMs;
        return 0;
      },
    );

  return {
    async slot(who, maxWaitMs, stopping = () => false) {
      const deadline = Date.now() + maxWaitMs;
      for (;;) {
        if (stopping()) return false;
        const wait = await tryTake();
        if (wait === 0) return true;
        const next =
          who === "visitor" ? Math.min(wait, VISITOR_POLL_MS) : Math.min(wait + graceMs, BACKGROUND_POLL_MS);
        if (Date.now() + wait > deadline) return false;
        await sleep(next);
      }
    },
    async pause(ms) {
      freeAt = Math.max(freeAt, Date.now() + ms);
      await inRedis(
        async (client) => {
          await client.set(SLOT_KEY, "1", "PX", ms, "NX");
          await client.pexpire(SLOT_KEY, ms, "GT");
        },
        () => undefined,
      );
    },
  };
}
