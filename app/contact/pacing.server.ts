// The provider's rate, site-wide: one request per interval across replicas (Redis) or in this process (decision 046).
import type { RedisLink } from "~/lib/redis.server";

export type Pacing = {
  /**
   * Waits for the next free slot, at most `maxWaitMs`; false when none came (or `stopping` said so).
   * A visitor's send goes before the redelivery's.
   */
  slot(who: "visitor" | "background", maxWaitMs: number, stopping?: () => boolean): Promise<boolean>;
  /** The provider asked us to slow down: no sender starts a request for `ms`. */
  pause(ms: number): Promise<void>;
};

const SLOT_KEY = "portfolio:provider-slot";
const VISITORS_KEY = "portfolio:provider-visitors";
/** Arrival times vary by a few milliseconds: each slot is a little longer than the rate asks. */
const MARGIN_MS = 50;
const VISITOR_MARK_MS = 10_000;
const POLL_MS = 25;
const BACKGROUND_POLL_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createPacing(maxPerSecond: number, redis: RedisLink | null): Pacing {
  const intervalMs = Math.ceil(1_000 / maxPerSecond) + MARGIN_MS;
  // This process's own view, used alone without Redis and while Redis is away.
  let freeAt = 0;
  let visitorsHere = 0;

  async function inRedis<T>(
    work: (client: RedisLink["client"]) => Promise<T>,
    fallback: () => T,
  ): Promise<T> {
    if (redis) {
      try {
        return await work(redis.client);
      } catch {
        // Redis away: this process paces itself until it is back.
      }
    }
    return fallback();
  }

  /** 0 when the slot was taken now, else how long until it may be free. */
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

  const visitorsWaiting = () =>
    inRedis(
      async (client) => Number((await client.get(VISITORS_KEY)) ?? 0) > 0,
      () => visitorsHere > 0,
    );

  const markVisitor = (delta: 1 | -1) =>
    inRedis(
      async (client) => {
        await client.multi().incrby(VISITORS_KEY, delta).pexpire(VISITORS_KEY, VISITOR_MARK_MS).exec();
      },
      () => {
        visitorsHere += delta;
      },
    );

  return {
    async slot(who, maxWaitMs, stopping = () => false) {
      const deadline = Date.now() + maxWaitMs;
      if (who === "visitor") await markVisitor(1);
      try {
        for (;;) {
          if (stopping()) return false;
          const wait = who === "background" && (await visitorsWaiting()) ? POLL_MS : await tryTake();
          if (wait === 0) return true;
          if (Date.now() + wait > deadline) return false;
          await sleep(Math.min(wait, who === "visitor" ? POLL_MS : BACKGROUND_POLL_MS));
        }
      } finally {
        if (who === "visitor") await markVisitor(-1);
      }
    },
    async pause(ms) {
      const until = Date.now() + ms;
      freeAt = Math.max(freeAt, until);
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
