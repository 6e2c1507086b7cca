// A second accessibility engine beside axe (tests/e2e/site-a11y.spec.ts):
// pa11y with HTML_CodeSniffer, WCAG 2 AA, against the production server: `/`
// in both themes, the 404 page and the page a refused no-JS post gets.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "@playwright/test";
import pa11y from "pa11y";
import { describe, expect, it } from "vitest";
import { chromiumArgs, systemChromium } from "../support/chromium.mjs";
import { BROWSER_HEADERS, VALID, formBody } from "../support/contact";
import { useAppServer } from "../support/use-app-server";

const server = useAppServer({ env: { OUTBOX_DIR: mkdtempSync(join(tmpdir(), "portfolio-pa11y-outbox-")) } });

/** HTML_CodeSniffer's errors for the page at `path` (its warnings and notices are advice). */
async function errors(
  path: string,
  request: { headers?: Record<string, string>; method?: string; postData?: string } = {},
) {
  const result = await pa11y(`${server.app.url}${path}`, {
    standard: "WCAG2AA",
    runners: ["htmlcs"],
    timeout: 60_000,
    chromeLaunchConfig: { executablePath: systemChromium ?? chromium.executablePath(), args: chromiumArgs },
    ...request,
  });
  return result.issues
    .filter((issue) => issue.type === "error")
    .map((issue) => `${issue.code} ${issue.selector}: ${issue.message}`);
}

async function themeCookie(theme: "light" | "dark") {
  const chosen = await fetch(`${server.app.url}/action/set-theme`, {
    method: "POST",
    body: new URLSearchParams({ theme }),
    redirect: "manual",
  });
  return chosen.headers.get("Set-Cookie")!.split(";")[0]!;
}

describe("pa11y (HTML_CodeSniffer, WCAG 2 AA) finds no errors", () => {
  it("on / in the dark theme", async () => {
    expect(await errors("/", { headers: { Cookie: await themeCookie("dark") } })).toEqual([]);
  }, 90_000);

  it("on / in the light theme", async () => {
    expect(await errors("/", { headers: { Cookie: await themeCookie("light") } })).toEqual([]);
  }, 90_000);

  it("on the 404 page", async () => {
    expect(await errors("/no-such-page")).toEqual([]);
  }, 90_000);

  it("on the page a refused no-JS post gets, the typed text and the errors in it", async () => {
    const refused = formBody({ ...VALID, email: "not-an-address" }).toString();
    const headers = { ...BROWSER_HEADERS, "Content-Type": "application/x-www-form-urlencoded" };
    expect(await errors("/?index", { method: "POST", postData: refused, headers })).toEqual([]);
  }, 90_000);
});
