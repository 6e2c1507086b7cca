// The enforced, hash-based CSP against a real browser: loading and using the
// page (theme toggle, a tooltip, which Radix positions with inline styles, the
// contact form) and the 404 page raise no CSP violation, no console error or
// warning and no hydration error; the hashed inline theme script really runs;
// a script injected into the live page is blocked.
import type { Page } from "@playwright/test";
import { THEME_STORAGE_KEY } from "~/theme/theme";
import {
  expect,
  FAILED,
  fillForm,
  gotoHydrated,
  message,
  sendButton,
  SENT,
  test,
  waitForHydration,
} from "./fixtures";

/** Opens a page with the enforced CSP, hydrated. */
async function openWithCsp(page: Page, path = "/") {
  const response = await gotoHydrated(page, path);
  const csp = response?.headers()["content-security-policy"] ?? "";
  const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1] ?? "";
  expect(scriptSrc).toMatch(/^'self'( 'sha256-[A-Za-z0-9+/]{43}=')+ 'strict-dynamic'$/);
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

  // Radix places the tooltip with a style attribute: style-src allows it.
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

test("the hashed inline theme script runs before paint for a visitor with only a stored theme", async ({
  page,
  problems,
}) => {
  await page.addInitScript((key) => localStorage.setItem(key, "light"), THEME_STORAGE_KEY);
  await page.goto("/");
  expect(await htmlTheme(page)).toContain("light");
  await waitForHydration(page);
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

test("a script that made it into the page's markup is blocked and reported", async ({ page, problems }) => {
  // As a stored or reflected injection would arrive: in the HTML, under the page's own policy.
  await page.route("/", async (route) => {
    const response = await route.fetch();
    const planted = (await response.text()).replace(
      /<body[^>]*>/,
      '$&<script>window.injected = "script"</script><img alt="" src="data:," onload="window.injected = \'handler\'">',
    );
    await route.fulfill({ response, body: planted });
  });
  await openWithCsp(page);
  expect(await page.evaluate(() => (window as { injected?: string }).injected)).toBeUndefined();
  // The document's own securitypolicyviolation events, as the problems fixture logs them.
  const violations = problems.seen.filter((line) => line.startsWith("error: CSP violation"));
  expect(violations).toEqual([
    expect.stringMatching(/script-src-elem blocked inline/),
    expect.stringMatching(/script-src-attr blocked inline/),
  ]);
  problems.allow(
    /CSP violation: script-src-(elem|attr) blocked inline/,
    /Content Security Policy/,
    // The planted nodes are not React's: hydration reports the mismatch.
    /Minified React error #(418|423)/,
  );
  expect(problems.unexpected()).toEqual([]);
});

/**
 * The page a CDN that ignores `Vary: Cookie` would hand this visitor: the
 * shared copy, fetched without cookies. Records the <html> class as the
 * <body> starts, before anything in it can be painted.
 */
async function serveSharedCopy(page: Page) {
  await page.route("/", async (route) => {
    const shared = await fetch(route.request().url(), { headers: { "Accept-Encoding": "identity" } });
    await route.fulfill({
      status: shared.status,
      headers: Object.fromEntries(shared.headers),
      body: Buffer.from(await shared.arrayBuffer()),
    });
  });
  await page.addInitScript(() => {
    new MutationObserver((_records, observer) => {
      if (!document.body) return;
      document.documentElement.dataset.themeAtBody = document.documentElement.className;
      observer.disconnect();
    }).observe(document, { childList: true, subtree: true });
  });
}

test("a visitor who chose light, handed the shared dark copy, sees light before the first paint", async ({
  page,
  problems,
}) => {
  await gotoHydrated(page);
  await themeButton(page).click();
  expect(await htmlTheme(page)).toContain("light");

  await serveSharedCopy(page);
  const shared = await page.goto("/");
  expect(await shared!.text()).toMatch(/<html lang="en" class="dark"/);
  expect(await page.evaluate(() => document.documentElement.dataset.themeAtBody)).toBe("light");
  await waitForHydration(page);
  expect(problems.unexpected()).toEqual([]);
});

test("so does one who chose light without JavaScript, once a page with JavaScript has been seen", async ({
  page,
  problems,
}) => {
  // The choice as a plain form post makes: the cookie only, nothing in localStorage.
  await page.request.post("/action/set-theme", { form: { theme: "light" }, maxRedirects: 0 });
  await gotoHydrated(page);
  expect(await htmlTheme(page)).toContain("light");
  await page.waitForFunction((key) => localStorage.getItem(key) === "light", THEME_STORAGE_KEY);

  await serveSharedCopy(page);
  await page.goto("/");
  expect(await page.evaluate(() => document.documentElement.dataset.themeAtBody)).toBe("light");
  await waitForHydration(page);
  expect(problems.unexpected()).toEqual([]);
});
