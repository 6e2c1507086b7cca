import { contactServices } from "~/services.server";
import { config } from "~/config.server";

/** Liveness: names modes only, never calls the provider; a store refusing writes or away is not unhealthy (docs/deploy.md). */
export function loader() {
  const store = contactServices.store.health();
  const body = {
    status: "ok",
    mail: config.mail.mode,
    store: store.state === "ok" ? "ok" : "refusing_writes",
    rateLimit: contactServices.rateLimiters.where,
  };
  return Response.json(body, { headers: { "Cache-Control": "no-store" } });
}
