// A throttled post on the wire, as the production server answers it: 429 with
// Retry-After in seconds, with and without JavaScript; and, with no proxy in
// front, one client is the address that connects.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "@playwright/test";
import { describe, expect, it } from "vitest";
import { OUTCOME_TEXT } from "~/contact/form/contract";
import { chromiumArgs, systemChromium } from "../support/chromium.mjs";
import { waitForHydration } from "../support/hydration";
import { BROWSER_HEADERS, VALID, formBody, postForm } from "../support/contact";
import { raw } from "../support/raw-http";
import { useAppServer } from "../support/use-app-server";

const server = useAppServer({
  env: {
    CONTACT_RATE_LIMIT_MAX: "1",
    OUTBOX_DIR: mkdtempSync(join(tmpdir(), "portfolio-throttle-outbox-")),
  },
});

const post = (path: string) => postForm(`${server.app.url}${path}`, VALID);

describe("a throttled post", () => {
  it("without JavaScript: the page with the typed text, 429 and Retry-After", async () => {
    expect((await post("/?index")).status).toBe(303);
    const throttled = await post("/?index");
    expect(throttled.status).toBe(429);
    const seconds = Number(throttled.headers.get("Retry-After"));
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(600);
    const page = await throttled.text();
    expect(page).toContain(OUTCOME_TEXT.failed.title);
    expect(page).toContain(OUTCOME_TEXT.failed.description);
    expect(page).toContain(`try again in ${Math.ceil(seconds / 60)} minutes`);
    expect(page).toContain(VALID.subject);
  });

  it("with JavaScript: data, 429 and Retry-After", async () => {
    const throttled = await post("/_root.data?index");
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("Retry-After"))).toBeGreaterThan(0);
  });

  it("in the browser without JavaScript, the alert says the spec's title and text, then when to try again", async () => {
    const browser = await chromium.launch({ executablePath: systemChromium, args: chromiumArgs });
    try {
      const page = await browser.newPage({ javaScriptEnabled: false });
      await page.goto(server.app.url);
      for (const [name, value] of Object.entries(VALID)) await page.locator(`#contact-${name}`).fill(value);
      await page.locator("#contact form button[type=submit]").click();
      const alert = page.locator("#contact [role=alert]");
      await alert.getByText(OUTCOME_TEXT.failed.title, { exact: true }).waitFor();
      expect(await alert.getByText(OUTCOME_TEXT.failed.description, { exact: true }).count()).toBe(1);
      expect(await alert.getByText(/please try again in \d+ minutes?\./).count()).toBe(1);
    } finally {
      await browser.close();
    }
  }, 30_000);

  it("in the browser, the toast says the spec's title and text, then when to try again", async () => {
    const browser = await chromium.launch({ executablePath: systemChromium, args: chromiumArgs });
    try {
      const page = await browser.newPage();
      await page.goto(server.app.url);
      await waitForHydration(page);
      for (const [name, value] of Object.entries(VALID)) await page.locator(`#contact-${name}`).fill(value);
      await page.locator("#contact form button[type=submit]").click();
      const toast = page.locator("ol > li[data-state=open]");
      await toast.getByText(OUTCOME_TEXT.failed.title, { exact: true }).waitFor();
      expect(await toast.getByText(OUTCOME_TEXT.failed.description, { exact: true }).count()).toBe(1);
      expect(await toast.getByText(/please try again in \d+ minutes?\./).count()).toBe(1);
    } finally {
      await browser.close();
    }
  }, 30_000);
});

describe("without a proxy (TRUST_PROXY unset)", () => {
  const from = (localAddress: string) =>
    raw(`${server.app.url}/?index`, {
      method: "POST",
      headers: { ...BROWSER_HEADERS, "Content-Type": "application/x-www-form-urlencoded" },
      body: formBody({ ...VALID, subject: `From ${localAddress}` }).toString(),
      localAddress,
    });

  it("a client is the address that connects: one used up does not stop another", async () => {
    expect((await from("127.0.0.2")).status).toBe(303);
    expect((await from("127.0.0.2")).status).toBe(429);
    expect((await from("127.0.0.3")).status).toBe(303);
  });
});
