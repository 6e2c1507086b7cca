import { config } from "~/config.server";
import { countUndelivered } from "~/contact/undelivered.server";
import { sharedRedis } from "~/lib/redis.server";

/**
 * Liveness for deploys and the container's HEALTHCHECK: never calls the mail
 * provider or Redis, and names only modes, never a key or the Redis address.
 * Redis down is not unhealthy: the in-memory limit takes over, so `rateLimit`
 * says which limit is in force. `undelivered` counts the messages waiting for
 * `npm run outbox -- resend` (one readdir).
 */
export async function loader() {
  const redis = config.redisUrl ? sharedRedis(config.redisUrl).state() : null;
  // null when the folder cannot be read: liveness does not depend on it.
  const undelivered = await countUndelivered(config.mail.undeliveredDir).catch(() => null);
  const body = {
    status: "ok",
    mail: config.mail.mode,
    rateLimit: redis === "up" ? "redis" : "memory",
    ...(redis ? { redis } : {}),
    undelivered,
  };
  return Response.json(body, { headers: { "Cache-Control": "no-store" } });
}
