// Shared by the site's e2e specs: the content they read, and watchers for what
// a visitor should never see in the console.
import type { Page } from "@playwright/test";
import { site } from "~/content/site";

export { site };
export const SECTION_IDS = site.nav.map((item) => item.id);

/** The header is fixed; sections stop below it (scroll-margin-top: 4.5rem). */
export const SECTION_STOP_PX = 72;

/**
 * Collects console errors and warnings, uncaught errors (React reports
 * hydration mismatches this way in production) and CSP violations.
 */
export async function watchProblems(page: Page) {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning")
      problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  return problems;
}

/**
 * Opens a page with a header and waits until React has hydrated it: the page
 * hydrates after its load event, so `goto` alone can hand back a page whose
 * controls still behave as without JS. The header drops its no-JS `:target`
 * fallback in an effect; once it has, every effect of the first render has run.
 */
export async function gotoHydrated(page: Page, url = "/") {
  const response = await page.goto(url);
  await waitForHydration(page);
  return response;
}

export async function waitForHydration(page: Page) {
  await page.waitForFunction(() => !document.getElementById("mobile-nav")?.className.includes("target:"));
}

/** The top of a section relative to the viewport, in px. */
export function sectionTop(page: Page, id: string) {
  return page.evaluate(
    (sectionId) => Math.round(document.getElementById(sectionId)!.getBoundingClientRect().top),
    id,
  );
}

/** Whether the window is scrolled to the very bottom (a short last section cannot reach the top). */
export function atPageBottom(page: Page) {
  return page.evaluate(() => {
    const root = document.documentElement;
    return Math.ceil(window.innerHeight + window.scrollY) >= root.scrollHeight - 2;
  });
}
