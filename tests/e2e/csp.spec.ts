// The enforced CSP against a real browser: loading and using the page (theme
// toggle, a tooltip, which loads its code on first hover, the contact form)
// and the 404 page raise no CSP violation, no console error or warning and no
// hydration error. The nonce'd inline theme script really runs.
import { expect, test, type Page } from "@playwright/test";
import { OUTCOME_TEXT } from "~/contact/contract";
import { THEME_STORAGE_KEY } from "~/theme/theme";
import { fillForm, marker, message, sendButton } from "../support/contact-e2e";

type Watch = { violations: string[]; console: string[] };

/** Records CSP violations (from the document's own event) and console errors, warnings and page errors. */
async function watch(page: Page): Promise<Watch> {
  const seen: Watch = { violations: [], console: [] };
  await page.exposeFunction("__reportCspViolation", (text: string) => seen.violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      const report = (window as unknown as { __reportCspViolation: (text: string) => void })
        .__reportCspViolation;
      void report(
        `${event.effectiveDirective} blocked ${event.blockedURI || "inline"} (${event.sourceFile}:${event.lineNumber})`,
      );
    });
  });
  page.on("console", (entry) => {
    if (entry.type() === "error" || entry.type() === "warning")
      seen.console.push(`${entry.type()}: ${entry.text()}`);
  });
  page.on("pageerror", (error) => seen.console.push(`pageerror: ${error.message}`));
  return seen;
}

async function openHydrated(page: Page, path = "/") {
  const response = await page.goto(path);
  const csp = response?.headers()["content-security-policy"] ?? "";
  expect(csp).toMatch(/script-src [^;]*'nonce-/);
  await page.waitForFunction(() => (window as { __remixContext?: unknown }).__remixContext);
  await page.waitForLoadState("networkidle");
}

const themeButton = (page: Page) =>
  page.locator("header").getByRole("button", { name: /^Switch to (light|dark) theme$/ });
const htmlTheme = (page: Page) => page.evaluate(() => document.documentElement.className);

test("using the page: theme toggle, tooltip and contact form raise no CSP violation or console problem", async ({
  page,
}, info) => {
  const seen = await watch(page);
  await openHydrated(page);

  expect(await htmlTheme(page)).toContain("dark");
  const saved = page.waitForResponse((response) => response.url().endsWith("/action/set-theme"));
  await themeButton(page).click();
  expect((await saved).status()).toBe(204);
  expect(await htmlTheme(page)).toContain("light");

  // The tooltip's code arrives by dynamic import: allowed through 'strict-dynamic'.
  await page.mouse.move(0, 0);
  await themeButton(page).hover();
  await expect(page.getByRole("tooltip")).toBeVisible();

  await fillForm(page, message(marker(info)));
  await sendButton(page).click();
  // Another test may be steering the shared fake: either outcome is a used form.
  const outcome = new RegExp(`^(${OUTCOME_TEXT.sent.title}|${OUTCOME_TEXT.failed.title})$`);
  await expect(page.getByText(outcome).first()).toBeVisible();

  // Back with the theme cookie: the page is rendered light, without the inline theme script.
  await openHydrated(page);
  expect(await htmlTheme(page)).toContain("light");

  expect(seen.violations).toEqual([]);
  expect(seen.console).toEqual([]);
});

test("the nonce'd inline theme script runs before paint for a visitor with only a stored theme", async ({
  page,
}) => {
  const seen = await watch(page);
  await page.addInitScript((key) => localStorage.setItem(key, "light"), THEME_STORAGE_KEY);
  await page.goto("/");
  expect(await htmlTheme(page)).toContain("light");
  await page.waitForLoadState("networkidle");
  expect(seen.violations).toEqual([]);
  expect(seen.console).toEqual([]);
});

test("the 404 page raises no CSP violation", async ({ page }) => {
  const seen = await watch(page);
  await openHydrated(page, "/no-such-page");
  await expect(page.getByText("Oops! Page not found")).toBeVisible();
  expect(seen.violations).toEqual([]);
  // Expected here: the browser's note of the 404 status and the spec's own log of the path.
  const expected = [
    /Failed to load resource: the server responded with a status of 404/,
    /404 Error: User attempted to access non-existent route/,
  ];
  expect(seen.console.filter((line) => !expected.some((pattern) => pattern.test(line)))).toEqual([]);
});
