// The production server (build/server.js) with real environments:
// it refuses to start on a partial EmailJS setup and names what is missing,
// and it announces the outbox and the shared rate-limit key once.
import { expect, it } from "vitest";
import { startAppServer } from "../support/app-server";

it("refuses to start with only some EmailJS ids, naming the missing ones and no value", async () => {
  const started = startAppServer({ env: { EMAILJS_PUBLIC_KEY: "pk_SECRET_startup" } });
  await expect(started).rejects.toThrow(/Missing: EMAILJS_SERVICE_ID, EMAILJS_TEMPLATE_ID/);
  await expect(started).rejects.not.toThrow(/pk_SECRET_startup/);
}, 60_000);

it("without ids: starts, says once where the outbox is and that all clients share one key", async () => {
  const app = await startAppServer({ env: { OUTBOX_DIR: "/tmp/portfolio-startup-outbox" } });
  try {
    const output = app.output();
    expect(output.match(/written to the outbox at \/tmp\/portfolio-startup-outbox/g)).toHaveLength(1);
    expect(output.match(/TRUST_PROXY is not set/g)).toHaveLength(1);
  } finally {
    await app.stop();
  }
}, 60_000);
