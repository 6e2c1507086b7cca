import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmailJsFake } from "../support/emailjs-fake";
import { startAppServer } from "../support/app-server";
import { BLOCKED_DOMAIN, E2E_EMAILJS_IDS, FAKE_URL_ENV } from "./fixtures";

/**
 * Starts the production build once for the whole run, relaying mail to a fake
 * EmailJS API that lives in this (the runner's) process. Tests read the app's
 * address from E2E_BASE_URL and the fake's from E2E_EMAILJS_FAKE_URL (set
 * here, inherited by the workers).
 */
export default async function globalSetup() {
  const fake = await startEmailJsFake();
  // Messages the failure tests leave undelivered stay out of the working tree.
  const outbox = mkdtempSync(join(tmpdir(), "e2e-outbox-"));
  const app = await startAppServer({
    env: {
      ...E2E_EMAILJS_IDS,
      EMAILJS_API_URL: fake.url,
      OUTBOX_DIR: outbox,
      // Each test names its own client address (fixtures.ts), as behind a proxy;
      // some tests send more than the default 5 messages.
      TRUST_PROXY: "1",
      CONTACT_RATE_LIMIT_MAX: "1000",
      // The provider's pace and budget have their own tests (topology-provider-limits.test.ts).
      EMAILJS_MAX_PER_SECOND: "1000",
      CONTACT_DAILY_SEND_LIMIT: "100000",
      CONTACT_MONTHLY_SEND_LIMIT: "100000",
      CONTACT_NETWORK_DAILY_LIMIT: "100000",
      CONTACT_BLOCKLIST: `@${BLOCKED_DOMAIN}`,
      // The real proof and confirmation, without their minimum times: these tests fill the form at once
      // (people's timing: tests/integration/contact-bots.test.ts).
      CONTACT_BOT_CHECKS: "on",
      CONTACT_PROOF_MIN_SECONDS: "0",
      CONTACT_CONFIRM_MIN_SECONDS: "0",
    },
  });
  process.env.E2E_BASE_URL = app.url;
  process.env[FAKE_URL_ENV] = fake.url;
  return async () => {
    await app.stop();
    await fake.close();
    rmSync(outbox, { recursive: true, force: true });
  };
}
