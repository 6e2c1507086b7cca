// The one place that knows when a page in the browser has hydrated (decision 013).
import type { Page } from "@playwright/test";

/**
 * Waits until React has hydrated the page: it hydrates after its load event,
 * so `goto` alone can hand back a page whose controls still behave as without
 * JS. The header drops its no-JS `:target` fallback in an effect; once it has,
 * every effect of the first render has run.
 */
export async function waitForHydration(page: Page) {
  await page.waitForFunction(() => !document.getElementById("mobile-nav")?.className.includes("target:"));
}
