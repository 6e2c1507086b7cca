// The enforced CSP against a real browser: loading and using the page (theme
// toggle, a tooltip, which loads its code on first hover, the contact form)
// and the 404 page raise no CSP violation, no console error or warning and no
// hydration error. The nonce'd inline theme script really runs.
import type { Page } from "@playwright/test";
import { THEME_STORAGE_KEY } from "~/theme/theme";
import { expect, FAILED, fillForm, gotoHydrated, message, sendButton, SENT, test } from "./fixtures";

/** Opens a page with the enforced CSP, hydrated, once its lazy loads have settled. */
async function openWithCsp(page: Page, path = "/") {
  const response = await gotoHydrated(page, path);
  const csp = response?.headers()["content-security-policy"] ?? "";
  expect(csp).toMatch(/script-src [^;]*'nonce-/);
  await page.waitForLoadState("networkidle");
}

const themeButton = (page: Page) =>
  page.locator("header").getByRole("button", { name: /^Switch to (light|dark) theme$/ });
const htmlTheme = (page: Page) => page.evaluate(() => document.documentElement.className);

test("using the page: theme toggle, tooltip and contact form raise no CSP violation or console problem", async ({
  page,
  problems,
  mark,
}) => {
  await openWithCsp(page);

  expect(await htmlTheme(page)).toContain("dark");
  const saved = page.waitForResponse((response) => response.url().endsWith("/action/set-theme"));
  await themeButton(page).click();
  expect((await saved).status()).toBe(204);
  expect(await htmlTheme(page)).toContain("light");

  // The tooltip's code arrives by dynamic import: allowed through 'strict-dynamic'.
  await page.mouse.move(0, 0);
  await themeButton(page).hover();
  await expect(page.getByRole("tooltip")).toBeVisible();

  await fillForm(page, message(mark));
  await sendButton(page).click();
  // Another test may be steering the shared fake: either outcome is a used form.
  const outcome = new RegExp(`^(${SENT.title}|${FAILED.title})$`);
  await expect(page.getByText(outcome).first()).toBeVisible();

  // Back with the theme cookie: the page is rendered light, without the inline theme script.
  await openWithCsp(page);
  expect(await htmlTheme(page)).toContain("light");

  expect(problems.unexpected()).toEqual([]);
});

test("the nonce'd inline theme script runs before paint for a visitor with only a stored theme", async ({
  page,
  problems,
}) => {
  await page.addInitScript((key) => localStorage.setItem(key, "light"), THEME_STORAGE_KEY);
  await page.goto("/");
  expect(await htmlTheme(page)).toContain("light");
  await page.waitForLoadState("networkidle");
  expect(problems.unexpected()).toEqual([]);
});

test("the 404 page raises no CSP violation", async ({ page, problems }) => {
  await openWithCsp(page, "/no-such-page");
  await expect(page.getByText("Oops! Page not found")).toBeVisible();
  // Expected here: the browser's note of the 404 status and the page's own log of the path.
  problems.allow(
    /Failed to load resource: the server responded with a status of 404/,
    /404 Error: User attempted to access non-existent route/,
  );
  expect(problems.unexpected()).toEqual([]);
});
