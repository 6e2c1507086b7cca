import { config } from "~/config.server";
import { sharedRedis } from "~/lib/redis.server";
import { withSecurityHeaders } from "~/lib/security-headers.server";

/**
 * Liveness for deploys and the container's HEALTHCHECK: answers from memory,
 * never calls the mail provider or Redis, and names only modes, never a key
 * or the Redis address. Redis down is not unhealthy: the in-memory limit
 * takes over, so `rateLimit` says which limit is in force.
 */
export function loader() {
  const redis = config.redisUrl ? sharedRedis(config.redisUrl).state() : null;
  const body = {
    status: "ok",
    mail: config.mail.mode,
    rateLimit: redis === "up" ? "redis" : "memory",
    ...(redis ? { redis } : {}),
  };
  return withSecurityHeaders(Response.json(body, { headers: { "Cache-Control": "no-store" } }));
}
