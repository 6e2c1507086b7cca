import { config } from "~/config.server";
import { sharedRedis } from "~/lib/redis.server";

/**
 * Liveness for deploys, the proxy and the container's HEALTHCHECK: names modes
 * only, never calls the provider, and Redis away or slow is not unhealthy, since
 * the in-memory limit takes over (docs/contact.md).
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
