// A throttled post on the wire, as the production server answers it: 429 with
// Retry-After in seconds, with and without JavaScript (issue 17: the no-JS
// page lacked the header while a test of the action's return value passed).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BROWSER_HEADERS, VALID, formBody } from "../support/contact";
import { useAppServer } from "../support/use-app-server";

const server = useAppServer({
  env: {
    CONTACT_RATE_LIMIT_MAX: "1",
    OUTBOX_DIR: mkdtempSync(join(tmpdir(), "portfolio-throttle-outbox-")),
  },
});

const post = (path: string) =>
  fetch(`${server.app.url}${path}`, {
    method: "POST",
    headers: { ...BROWSER_HEADERS, "Content-Type": "application/x-www-form-urlencoded" },
    body: formBody(VALID),
    redirect: "manual",
  });

describe("a throttled post", () => {
  it("without JavaScript: the page with the typed text, 429 and Retry-After", async () => {
    expect((await post("/?index")).status).toBe(303);
    const throttled = await post("/?index");
    expect(throttled.status).toBe(429);
    const seconds = Number(throttled.headers.get("Retry-After"));
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(600);
    const page = await throttled.text();
    expect(page).toContain(`try again in ${Math.ceil(seconds / 60)} minutes`);
    expect(page).toContain(VALID.subject);
  });

  it("with JavaScript: data, 429 and Retry-After", async () => {
    const throttled = await post("/_root.data?index");
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("Retry-After"))).toBeGreaterThan(0);
  });
});
