import { config } from "~/config.server";
import { countUndelivered } from "~/contact/undelivered.server";
import { withSecurityHeaders } from "~/lib/security-headers.server";

/**
 * Liveness for deploys and the container's HEALTHCHECK: never calls the mail
 * provider, and names only the mail mode, never a key. `undelivered` counts
 * the messages waiting for `npm run outbox -- resend` (one readdir).
 */
export async function loader() {
  // null when the folder cannot be read: liveness does not depend on it.
  const undelivered = await countUndelivered(config.mail.undeliveredDir).catch(() => null);
  return withSecurityHeaders(
    Response.json(
      { status: "ok", mail: config.mail.mode, undelivered },
      { headers: { "Cache-Control": "no-store" } },
    ),
  );
}
