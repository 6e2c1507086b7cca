// Header navigation: plain #id links that scroll (smoothly, or instantly for
// reduced motion), the active link following the scroll, and the small-screen menu.
import type { Locator, Page } from "@playwright/test";
import {
  atPageBottom,
  expect,
  expectScrolledTo,
  gotoHydrated,
  LONG_TEST_TIMEOUT_MS,
  SCROLL_POLL,
  SECTION_IDS,
  sectionTop,
  site,
  test,
  waitForHydration,
} from "./fixtures";

const label = (id: string) => site.nav.find((item) => item.id === id)!.label;

async function expectCurrent(nav: Locator, id: string) {
  const current = nav.locator("[aria-current]");
  await expect(current).toHaveCount(1, SCROLL_POLL);
  await expect(current).toHaveText(label(id), SCROLL_POLL);
  await expect(current).toHaveAttribute("href", `#${id}`, SCROLL_POLL);
}

test.describe("desktop", () => {
  test("every nav link scrolls to its section, again and again, and only it is current", async ({ page }) => {
    // Instant jumps keep this long walk fast; smooth scrolling has its own tests below.
    await page.emulateMedia({ reducedMotion: "reduce" });
    await gotoHydrated(page);
    const nav = page.getByRole("navigation", { name: "Main" });
    await expectCurrent(nav, "home");
    // Every link at least twice, in an order that jumps both ways and repeats
    // a link right after itself (the case that broke beside ScrollRestoration).
    const order = [
      "about",
      "projects",
      "projects",
      "home",
      "contact",
      "skills",
      "services",
      "about",
      "contact",
      "services",
      "home",
      "skills",
    ];
    expect(new Set(order)).toEqual(new Set(SECTION_IDS));
    for (const id of order) {
      await nav.getByRole("link", { name: label(id), exact: true }).click();
      await expectScrolledTo(page, id);
      await expectCurrent(nav, id);
      await expect(page).toHaveURL(new RegExp(`#${id}$`));
    }
  });

  test("the current link follows a scroll by wheel or keyboard, not just clicks", async ({ page }) => {
    test.setTimeout(LONG_TEST_TIMEOUT_MS);
    await page.emulateMedia({ reducedMotion: "reduce" });
    await gotoHydrated(page);
    const nav = page.getByRole("navigation", { name: "Main" });
    for (const id of ["services", "about", "projects"]) {
      // Put the section's top just above the 100 px line.
      const top = await sectionTop(page, id);
      await page.mouse.wheel(0, top - 90);
      await expect.poll(() => sectionTop(page, id), SCROLL_POLL).toBe(90);
      await expectCurrent(nav, id);
    }
    // Its top just below the line: the section before it is current.
    await page.mouse.wheel(0, -20);
    await expect.poll(() => sectionTop(page, "projects"), SCROLL_POLL).toBe(110);
    await expectCurrent(nav, "services");

    // A loaded machine may take seconds to scroll, or drop the key press (decision 028): press until it has.
    await expect(async () => {
      await page.keyboard.press("End");
      expect(await atPageBottom(page)).toBe(true);
    }).toPass(SCROLL_POLL);
    await expectCurrent(nav, "contact");
    await expect(async () => {
      await page.keyboard.press("Home");
      expect(await page.evaluate(() => window.scrollY)).toBe(0);
    }).toPass(SCROLL_POLL);
    await expectCurrent(nav, "home");
  });

  test("the hero buttons scroll to Projects and Get In Touch", async ({ page }) => {
    await gotoHydrated(page);
    await page.getByRole("link", { name: "View My Work" }).click();
    await expectScrolledTo(page, "projects");
    await page.getByRole("link", { name: "Home", exact: true }).click();
    await expectScrolledTo(page, "home");
    await page.locator("#home").getByRole("link", { name: "Get In Touch" }).click();
    await expectScrolledTo(page, "contact");
  });
});

test.describe("scroll behaviour", () => {
  /**
   * Clicks the nav link and tells where the page was just before, right
   * after the click (in the same task) and when the scroll ended. A jump has
   * moved by the time click() returns; an animation has not started yet, as
   * it moves from the next frame on. No frames or timings are counted: a
   * busy machine drops frames, not this order of events.
   */
  async function scrollAfterClick(page: Page, id: string) {
    const scroll = await page.evaluate(async (sectionId) => {
      const before = Math.round(window.scrollY);
      const ended = new Promise((resolve) => window.addEventListener("scrollend", resolve, { once: true }));
      document.querySelector<HTMLAnchorElement>(`nav[aria-label="Main"] a[href="#${sectionId}"]`)!.click();
      const atClick = Math.round(window.scrollY);
      await ended;
      return { before, atClick, end: Math.round(window.scrollY) };
    }, id);
    await expectScrolledTo(page, id);
    expect(scroll.end).not.toBe(scroll.before);
    return scroll;
  }

  test("is instant when the visitor prefers reduced motion", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    await gotoHydrated(page);
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).scrollBehavior)).toBe("auto");
    const { atClick, end } = await scrollAfterClick(page, "projects");
    expect(atClick).toBe(end);
  });

  test("is smooth otherwise", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "no-preference" });
    await gotoHydrated(page);
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).scrollBehavior)).toBe(
      "smooth",
    );
    const { before, atClick } = await scrollAfterClick(page, "projects");
    expect(atClick).toBe(before);
  });
});

test.describe("small screens", () => {
  test.use({ viewport: { width: 375, height: 740 } });

  test("the hamburger opens the menu, a choice closes it and scrolls, Escape closes it", async ({ page }) => {
    await gotoHydrated(page);
    await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
    const button = page.getByRole("button", { name: "Menu" });
    const menu = page.locator("#mobile-nav");
    await expect(button).toHaveAttribute("aria-controls", "mobile-nav");
    await expect(button).toHaveAttribute("aria-expanded", "false");
    await expect(menu).toBeHidden();

    await button.click();
    await expect(button).toHaveAttribute("aria-expanded", "true");
    await expect(menu).toBeVisible();
    await expect(menu.getByRole("link")).toHaveText(site.nav.map((item) => item.label));
    await expectCurrent(menu, "home");

    await menu.getByRole("link", { name: "Skills" }).click();
    await expect(menu).toBeHidden();
    await expect(button).toHaveAttribute("aria-expanded", "false");
    await expectScrolledTo(page, "skills");

    await button.click();
    await expect(menu).toBeVisible();
    await expectCurrent(menu, "skills");
    await page.keyboard.press("Escape");
    await expect(menu).toBeHidden();
    await expect(button).toHaveAttribute("aria-expanded", "false");
    await expect(button).toBeFocused();

    // A keyboard user opens it with Space or Enter, like any button.
    await page.keyboard.press("Space");
    await expect(menu).toBeVisible();
    await page.keyboard.press("Enter");
    await expect(menu).toBeHidden();

    await button.click();
    await menu.getByRole("link", { name: "Contact" }).click();
    await expect(menu).toBeHidden();
    await expectScrolledTo(page, "contact");
  });

  test.describe("on a touch screen", () => {
    test.use({ hasTouch: true });

    test("a tap right after load opens the menu, before, during or after hydration", async ({
      page,
      problems,
    }) => {
      await page.goto("/");
      const button = page.getByRole("button", { name: "Menu" });
      await button.tap();
      await expect(page.locator("#mobile-nav")).toBeVisible();
      await waitForHydration(page);
      await expect(button).toHaveAttribute("aria-expanded", "true");
      await expect(page.locator("#mobile-nav")).toBeVisible();
      expect(problems.unexpected()).toEqual([]);
    });
  });

  test("a menu opened before JS ran (#mobile-nav) stays open, and closes, once it runs", async ({ page }) => {
    await gotoHydrated(page, "/#mobile-nav");
    const button = page.getByRole("button", { name: "Menu" });
    const menu = page.locator("#mobile-nav");
    await expect(button).toHaveAttribute("aria-expanded", "true");
    await expect(menu).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(button).toHaveAttribute("aria-expanded", "false");
    await expect(menu).toBeHidden();
  });

  test("no horizontal scrolling from 320 px up", async ({ page }) => {
    for (const width of [320, 375, 768, 1024]) {
      await page.setViewportSize({ width, height: 740 });
      await gotoHydrated(page);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${width} px`).toBe(width);
    }
  });
});
