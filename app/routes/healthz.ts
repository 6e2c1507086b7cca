import { contactServices } from "~/contact/action.server";
import { config } from "~/config.server";
import { sharedRedis } from "~/lib/redis.server";

/** Liveness: names modes only, never calls the provider; Redis down or a store refusing writes is not unhealthy (docs/deploy.md). */
export async function loader() {
  const link = config.redisUrl ? sharedRedis(config.redisUrl) : null;
  const redis = link ? await link.probe() : null;
  const redisRisks = link ? await link.risks() : [];
  const store = contactServices.store.health();
  const body = {
    status: "ok",
    mail: config.mail.mode,
    store: store.state === "ok" ? "ok" : "refusing_writes",
    rateLimit: redis === "up" ? "redis" : "memory",
    ...(redis ? { redis } : {}),
    ...(redisRisks.length ? { redisRisks } : {}),
  };
  return Response.json(body, { headers: { "Cache-Control": "no-store" } });
}
