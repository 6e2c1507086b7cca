// Theme: dark by default, a toggle that flips and persists (cookie for the
// server, localStorage for the pre-paint script), no flash, and the server's first byte
// already carrying the chosen class.
import type { Page } from "@playwright/test";
import { expect, gotoHydrated, site, test, waitForHydration } from "./fixtures";

const toggle = (page: Page) => page.getByRole("button", { name: /^Switch to (light|dark) theme$/ });

async function expectTheme(page: Page, theme: "light" | "dark") {
  const other = theme === "dark" ? "light" : "dark";
  await expect(page.locator("html")).toHaveClass(theme);
  // Dark shows a sun ("switch to light"), light a moon.
  await expect(toggle(page)).toHaveAccessibleName(`Switch to ${other} theme`);
  await expect(toggle(page).locator(`[data-icon="${theme === "dark" ? "sun" : "moon"}"]`)).toBeVisible();
  await expect(toggle(page).locator(`[data-icon="${theme === "dark" ? "moon" : "sun"}"]`)).toBeHidden();
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(background).toBe(theme === "dark" ? "rgb(9, 9, 11)" : "rgb(255, 255, 255)");
}

/** The class on <html> in the server's HTML, before any script ran. */
function serverThemeClass(html: string) {
  return /<html[^>]*\bclass="([^"]*)"/.exec(html)?.[1];
}

test.describe("with a light OS preference", () => {
  test.use({ colorScheme: "light" });

  test("is dark by default, not the system's choice, from the server's first byte", async ({ page }) => {
    const response = await gotoHydrated(page);
    expect(serverThemeClass(await response!.text())).toBe("dark");
    await expectTheme(page, "dark");
  });
});

test("the toggle flips the theme, and the choice survives a reload, rendered by the server", async ({
  page,
  context,
}) => {
  await gotoHydrated(page);
  await expectTheme(page, "dark");

  const saved = page.waitForResponse(
    (r) => r.url().endsWith("/action/set-theme") && r.request().method() === "POST",
  );
  await toggle(page).click();
  await expectTheme(page, "light");
  expect((await saved).status()).toBe(204);
  expect(await page.evaluate(() => localStorage.getItem("theme"))).toBe("light");
  expect((await context.cookies()).map((cookie) => cookie.name)).toContain("theme");

  let response = await page.reload();
  await waitForHydration(page);
  expect(serverThemeClass(await response!.text())).toBe("light");
  await expectTheme(page, "light");

  const savedAgain = page.waitForResponse((r) => r.url().endsWith("/action/set-theme"));
  await toggle(page).click();
  await expectTheme(page, "dark");
  await savedAgain;
  expect(await page.evaluate(() => localStorage.getItem("theme"))).toBe("dark");
  response = await page.reload();
  await waitForHydration(page);
  expect(serverThemeClass(await response!.text())).toBe("dark");
  await expectTheme(page, "dark");
});

test("the first click counts, pressed while the tooltip waits to open or once it shows", async ({ page }) => {
  await gotoHydrated(page);
  const box = (await toggle(page).boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  // Held past the 700 ms open delay: the press, not the tooltip, decides.
  await page.mouse.down();
  await page.waitForTimeout(800);
  await page.mouse.up();
  await expectTheme(page, "light");

  await page.mouse.move(0, 400, { steps: 5 });
  await toggle(page).hover();
  await expect(page.getByRole("tooltip")).toBeVisible();
  await toggle(page).click();
  await expectTheme(page, "dark");
});

test.describe("on a touch screen", () => {
  test.use({ hasTouch: true });

  test("a tap right after load switches the theme, before, during or after hydration", async ({
    page,
    problems,
  }) => {
    await page.goto("/");
    await toggle(page).tap();
    // Before hydration the form posts and the page comes back light; after, the script switches it.
    await expectTheme(page, "light");
    await waitForHydration(page);
    await expectTheme(page, "light");
    expect(problems.unexpected()).toEqual([]);
  });
});

test("a light choice kept only in localStorage is applied before paint, then stored in the cookie", async ({
  page,
  context,
}) => {
  await page.addInitScript(() => {
    if (!sessionStorage.getItem("seeded")) {
      sessionStorage.setItem("seeded", "1");
      localStorage.setItem("theme", "light");
    }
    // The class <html> carries when <body> is first inserted, before any paint.
    new MutationObserver((_, observer) => {
      if (!document.body) return;
      (window as unknown as { classAtBody: string }).classAtBody = document.documentElement.className;
      observer.disconnect();
    }).observe(document, { childList: true, subtree: true });
  });
  expect(await context.cookies()).toEqual([]);

  const cookieSaved = page.waitForResponse((r) => r.url().endsWith("/action/set-theme"));
  const response = await gotoHydrated(page);
  // No cookie: the server could only render the default.
  expect(serverThemeClass(await response!.text())).toBe("dark");
  expect(await page.evaluate(() => (window as unknown as { classAtBody: string }).classAtBody)).toBe("light");
  await expectTheme(page, "light");

  // The choice moves into the cookie, so the next response is light from the start.
  await cookieSaved;
  const next = await page.request.get("/");
  expect(serverThemeClass(await next.text())).toBe("light");
});

test("with storage blocked by the browser the page and the toggle still work", async ({ page, problems }) => {
  await page.addInitScript(() => {
    const refuse = () => {
      throw new DOMException("The operation is insecure.", "SecurityError");
    };
    Storage.prototype.getItem = refuse;
    Storage.prototype.setItem = refuse;
  });
  await gotoHydrated(page);
  // Not the error page: the toggle's effect reads localStorage.
  await expect(page.getByRole("heading", { level: 1 })).toContainText(site.name);
  const saved = page.waitForResponse((r) => r.url().endsWith("/action/set-theme"));
  await toggle(page).click();
  await expectTheme(page, "light");
  await saved;
  const response = await page.reload();
  expect(serverThemeClass(await response!.text())).toBe("light");
  expect(problems.unexpected()).toEqual([]);
});
