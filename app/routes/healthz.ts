import { config } from "~/config.server";
import { sharedRedis } from "~/lib/redis.server";

/** Liveness: names modes only, never calls the provider; Redis down is not unhealthy (docs/deploy.md). */
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
