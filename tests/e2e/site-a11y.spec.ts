// Accessibility scans and a clean console, in both themes.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, gotoHydrated, LONG_TEST_TIMEOUT_MS, test, waitForHydration } from "./fixtures";

async function expectNoAxeViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const summary = violations.map(
    (v) => `${v.id}: ${v.nodes.map((node) => node.target.join(" ")).join(", ")}`,
  );
  expect(summary).toEqual([]);
}

/** Opens "/" in the given theme, as a returning visitor with the cookie would see it. */
async function openHome(page: Page, theme: "light" | "dark") {
  await gotoHydrated(page);
  if (theme === "light") {
    const saved = page.waitForResponse((r) => r.url().endsWith("/action/set-theme"));
    await page.getByRole("button", { name: "Switch to light theme" }).click();
    await saved;
    await page.reload();
    await waitForHydration(page);
  }
  await expect(page.locator("html")).toHaveClass(theme);
}

for (const theme of ["dark", "light"] as const) {
  test.describe(`${theme} theme`, () => {
    test("axe finds no violations on /", async ({ page }) => {
      test.setTimeout(LONG_TEST_TIMEOUT_MS);
      await openHome(page, theme);
      await expectNoAxeViolations(page);
    });

    test("axe finds no violations at 375 px with the menu open", async ({ page }) => {
      test.setTimeout(LONG_TEST_TIMEOUT_MS);
      await page.setViewportSize({ width: 375, height: 740 });
      await openHome(page, theme);
      await page.getByRole("button", { name: "Menu" }).click();
      await expect(page.locator("#mobile-nav")).toBeVisible();
      // Scan the page, not the button's hover tooltip (portalled outside the landmarks).
      await page.mouse.move(200, 700, { steps: 5 });
      await expect(page.getByRole("tooltip")).toHaveCount(0);
      await expectNoAxeViolations(page);
    });

    test("loading / logs no error, warning, hydration problem or CSP violation", async ({
      page,
      problems,
    }) => {
      await openHome(page, theme);
      // Hydrated: the header's menu state is live.
      await page.setViewportSize({ width: 375, height: 740 });
      await page.getByRole("button", { name: "Menu" }).click();
      await expect(page.getByRole("button", { name: "Menu" })).toHaveAttribute("aria-expanded", "true");
      expect(problems.unexpected()).toEqual([]);
    });
  });
}

test("axe finds no violations on the 404 page", async ({ page }) => {
  test.setTimeout(LONG_TEST_TIMEOUT_MS);
  const response = await page.goto("/not-here");
  expect(response?.status()).toBe(404);
  await expectNoAxeViolations(page);
});
