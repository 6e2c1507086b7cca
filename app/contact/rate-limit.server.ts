// The contact form's per-client limit. With Redis, one count shared by every
// replica that survives restarts; while Redis is away, an in-memory limiter of
// the same size takes over in each process (rate-limiter-flexible's insurance
// limiter), so the form keeps working and is still limited.
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { AppConfig } from "~/config.server";
import type { RedisLink } from "~/lib/redis.server";

/** Namespaces the counts in a Redis that other apps may share. */
export const REDIS_KEY_PREFIX = "portfolio:";

/** A limit of `max` per `windowSeconds` per client; `name` keeps its counts apart from the other limits'. */
export function createRateLimiter(
  { max, windowSeconds }: AppConfig["rateLimit"],
  redis: RedisLink | null,
  name: string,
): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ points: max, duration: windowSeconds });
  if (!redis) return memory;
  return new RateLimiterRedis({
    storeClient: redis.client,
    keyPrefix: REDIS_KEY_PREFIX + name,
    points: max,
    duration: windowSeconds,
    // Not ready: go to the insurance limiter at once instead of trying Redis.
    rejectIfRedisNotReady: true,
    insuranceLimiter: memory,
  });
}
