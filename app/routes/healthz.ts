import { config } from "~/config.server";
import { withSecurityHeaders } from "~/lib/security-headers.server";

/**
 * Liveness for deploys and the container's HEALTHCHECK: answers from memory,
 * never calls the mail provider, and names only the mail mode, never a key.
 */
export function loader() {
  return withSecurityHeaders(
    Response.json({ status: "ok", mail: config.mail.mode }, { headers: { "Cache-Control": "no-store" } }),
  );
}
