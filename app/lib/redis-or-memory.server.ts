// What the replicas remember together: in Redis when it is set and answers, else in this process (decision 011).
import { LRUCache } from "lru-cache";
import type { RedisLink } from "./redis.server";

export function redisOrMemory<V extends NonNullable<unknown>>(
  redis: RedisLink | null,
  { max, ttlMs }: { max: number; ttlMs: number },
) {
  const memory = new LRUCache<string, V>({ max, ttl: ttlMs });
  return async <T>(
    inRedis: (client: RedisLink["client"]) => Promise<T>,
    inMemory: (memory: LRUCache<string, V>) => T,
  ): Promise<T> => {
    if (redis) {
      try {
        return await inRedis(redis.client);
      } catch {
        // Redis away: this process remembers until it is back.
      }
    }
    return inMemory(memory);
  };
}
