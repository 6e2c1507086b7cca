// The one place that knows when a page in the browser has hydrated (decisions 013 and 061).
import type { Page } from "@playwright/test";

/**
 * Waits until React has hydrated the page: it hydrates after its load event,
 * so `goto` alone can hand back a page whose controls still behave as without
 * JS. The header drops its no-JS `:target` fallback in an effect; once it has,
 * every effect of the first render has run. Each tooltip is a Suspense boundary
 * React hydrates after that, and a hover before then is lost: it has hydrated once
 * React has set its props on the trigger (`__reactProps$…`).
 */
export async function waitForHydration(page: Page) {
  await page.waitForFunction(
    () =>
      !document.getElementById("mobile-nav")?.className.includes("target:") &&
      [...document.querySelectorAll("[data-state]")].every((trigger) =>
        Object.keys(trigger).some((key) => key.startsWith("__reactProps$")),
      ),
  );
}
