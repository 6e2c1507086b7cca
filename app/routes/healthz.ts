import { config } from "~/config.server";
import { sharedRedis } from "~/lib/redis.server";

/**
 * Liveness for deploys, the proxy and the container's HEALTHCHECK: never calls
 * the mail provider, and names only modes, never a key, an address or a count
 * an attacker could use (how many messages wait tells the provider is down;
 * the owner has the log and `npm run outbox -- list`). Redis is asked for real
 * with a short deadline; Redis away, slow or refusing writes is not unhealthy,
 * as the in-memory limit takes over, so `rateLimit` says which is in force.
 */
export async function loader() {
  const redis = config.redisUrl ? await sharedRedis(config.redisUrl).probe() : null;
  const body = {
    status: "ok",
    mail: config.mail.mode,
    rateLimit: redis === "up" ? "redis" : "memory",
    ...(redis ? { redis } : {}),
  };
  return Response.json(body, { headers: { "Cache-Control": "no-store" } });
}
