import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAppServer } from "../support/app-server";

/**
 * Starts the production build once for the whole run. Tests read its address
 * from E2E_BASE_URL (set here, inherited by the workers).
 */
export default async function globalSetup() {
  const outbox = mkdtempSync(join(tmpdir(), "portfolio-e2e-outbox-"));
  const app = await startAppServer({
    env: {
      OUTBOX_DIR: outbox,
      // The suite sends many messages from one address.
      CONTACT_RATE_LIMIT_MAX: "1000",
    },
  });
  process.env.E2E_BASE_URL = app.url;
  process.env.E2E_OUTBOX_DIR = outbox;
  return async () => {
    await app.stop();
  };
}
